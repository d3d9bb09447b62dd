// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "docver",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "DocverKit", targets: ["DocverKit"]),
        .executable(name: "docver", targets: ["docver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Builds the DocverKit documentation catalog: swift package generate-documentation --target DocverKit
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "Clibgit2",
            pkgConfig: "libgit2",
            providers: [.apt(["libgit2-dev"])]
        ),
        .target(
            name: "DocverKit",
            dependencies: ["Clibgit2"]
        ),
        .executableTarget(
            name: "docver",
            dependencies: [
                "DocverKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "DocverTests",
            // "docver" is a build dependency only: the CLI tests run the built binary.
            dependencies: ["DocverKit", "docver"]
        ),
    ]
)
