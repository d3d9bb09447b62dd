// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "docver",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DocverKit", targets: ["DocverKit"]),
        .executable(name: "docver", targets: ["docver"]),
    ],
    // A package that depends on the DocverKit product compiles DocverKit and Clibgit2Startup
    // and none of the packages below (SwiftPM 6.3 only compiles swift-argument-parser's two
    // command plugins, as it does for every resolved package). It still resolves (fetches)
    // swift-argument-parser and swift-log, since the `docver` product names them, but leaves
    // swift-docc-plugin out, which no target uses: `swift package show-dependencies` in such a
    // package lists the first two only. Keeping those two from being fetched would take moving
    // the CLI into a package of its own.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Builds the DocverKit documentation catalog: swift package generate-documentation --target DocverKit
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The CLI's -v diagnostics (the library never logs).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(
            name: "Clibgit2",
            pkgConfig: "libgit2",
            providers: [.apt(["libgit2-dev"])]
        ),
        // libgit2's start-up with the CA bundle's parse deferred to the first transfer
        // (Sources/Clibgit2Startup/include/libgit2_startup.h says how, and why it is safe).
        .target(
            name: "Clibgit2Startup",
            dependencies: ["Clibgit2"]
        ),
        .target(
            name: "DocverKit",
            dependencies: ["Clibgit2", "Clibgit2Startup"]
        ),
        .executableTarget(
            name: "docver",
            dependencies: [
                "DocverKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Example apps on the editor library (see Examples/TextNotes and Examples/ImageNotes).
        .executableTarget(name: "TextNotes", dependencies: ["DocverKit"], path: "Examples/TextNotes/Sources"),
        .executableTarget(name: "ImageNotes", dependencies: ["DocverKit"], path: "Examples/ImageNotes/Sources"),
        // The key-value store's example (see Examples/BackgroundColor).
        .executableTarget(name: "BackgroundColor", dependencies: ["DocverKit"], path: "Examples/BackgroundColor/Sources"),
        // Helpers shared by the test targets (the seeded generator of property and fuzz tests).
        .target(name: "DocverTestSupport", path: "Tests/DocverTestSupport"),
        .testTarget(
            name: "DocverTests",
            // "docver" and the examples are build dependencies only: the tests run the built binaries.
            dependencies: ["DocverKit", "DocverTestSupport", "docver", "TextNotes", "ImageNotes", "BackgroundColor"]
        ),
        .testTarget(name: "DocverUnitTests", dependencies: ["DocverKit", "DocverTestSupport"]),
    ]
)
