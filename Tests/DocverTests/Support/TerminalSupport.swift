import Foundation

/// What docver wrote when some of its streams were a terminal.
struct TerminalRun {
    var status: Int32
    /// Everything written to the terminal (by whichever streams were on it), "\r\n" made "\n".
    var terminal: String
    /// stdout and stderr when they were pipes (empty when they were on the terminal).
    var stdout: String
    var stderr: String
}

/// Runs the docver CLI with stdout and/or stderr on a pseudo-terminal (24 × 80) and the others
/// on pipes; stdin is the terminal, which is the controlling terminal of docver's session (its
/// process group in the foreground, as a shell runs it). Python's `pty` module makes it.
///
/// The environment is the test's, with `TERM=xterm`, no `NO_COLOR`, and `DOCVER_PAGER` empty
/// (no pager that could wait for a key), then `environment` on top; a nil value removes the
/// variable. The run is killed after `timeout` seconds.
func docverWithTerminal(
    _ arguments: [String], in directory: URL, stdoutOnTerminal: Bool = true,
    stderrOnTerminal: Bool = true, environment: [String: String?] = [:],
    timeout: Int = 120
) throws -> TerminalRun {
    let script = #"""
        import fcntl, json, os, pty, select, signal, struct, subprocess, sys, termios, threading, time
        spec = json.loads(sys.argv[1]); command = sys.argv[2:]
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        env = dict(os.environ)
        for key, value in spec["env"].items():
            if value is None: env.pop(key, None)
            else: env[key] = value
        def controlling_terminal():
            # A session of its own whose controlling terminal is the pty (stdin), as a shell gives.
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        process = subprocess.Popen(command, cwd=spec["cwd"], env=env, stdin=slave,
                                   stdout=slave if spec["stdout"] else subprocess.PIPE,
                                   stderr=slave if spec["stderr"] else subprocess.PIPE, preexec_fn=controlling_terminal)
        os.close(slave)
        captured = {"stdout": b"", "stderr": b""}
        def drain(name, stream):
            captured[name] = stream.read()
        threads = []
        for name in ("stdout", "stderr"):
            stream = getattr(process, name)
            if stream is not None:
                thread = threading.Thread(target=drain, args=(name, stream)); thread.start(); threads.append(thread)
        terminal = b""; deadline = time.time() + spec["timeout"]; timed_out = False
        while True:
            if time.time() > deadline:
                timed_out = True; os.killpg(process.pid, signal.SIGKILL); break
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try: chunk = os.read(master, 65536)
                except OSError: break
                if not chunk: break
                terminal += chunk
            elif process.poll() is not None:
                # The program ended; read what is left on the terminal.
                try:
                    while select.select([master], [], [], 0.1)[0]:
                        chunk = os.read(master, 65536)
                        if not chunk: break
                        terminal += chunk
                except OSError: pass
                break
        status = process.wait()
        for thread in threads: thread.join()
        json.dump({"status": 124 if timed_out else status,
                   "terminal": terminal.decode("utf-8", "replace"),
                   "stdout": captured["stdout"].decode("utf-8", "replace"),
                   "stderr": captured["stderr"].decode("utf-8", "replace")}, sys.stdout)
        """#
    var variables: [String: String?] = ["TERM": "xterm", "NO_COLOR": nil, "DOCVER_PAGER": "", "DOCVER_NOW": nil]
    variables.merge(environment) { $1 }
    let spec: [String: Any] = [
        "cwd": directory.path, "stdout": stdoutOnTerminal, "stderr": stderrOnTerminal, "timeout": timeout,
        "env": variables.mapValues { $0 as Any? ?? NSNull() },
    ]
    let specText = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
    let python =
        ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? "/usr/bin/env"
    let prefix = python == "/usr/bin/env" ? ["python3"] : []
    let result = try runProcess(python, prefix + ["-c", script, specText, docverExecutable] + arguments)
    guard let object = try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any] else {
        throw TerminalRunFailed(stderr: result.stderr)
    }
    return TerminalRun(
        status: Int32(object["status"] as? Int ?? -1),
        terminal: (object["terminal"] as? String ?? "").replacingOccurrences(of: "\r\n", with: "\n"),
        stdout: object["stdout"] as? String ?? "",
        stderr: object["stderr"] as? String ?? "")
}

struct TerminalRunFailed: Error, CustomStringConvertible {
    var stderr: String
    var description: String { "the terminal harness failed: \(stderr)" }
}

/// The escape character that starts every ANSI colour sequence.
let escape = "\u{1B}["
