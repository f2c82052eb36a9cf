//! A real load balancer for the fleet tests: Debian's HAProxy (`scripts/test` installs it), run
//! in the foreground on a free port of 127.0.0.1 with the configuration `scripts/fleet` uses
//! (`scripts/haproxy.cfg.in`: round robin, no sticky sessions), in front of the given instances.
//! It is stopped when the [`Balancer`] is dropped.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::tier;

/// The configuration the fleet script and these tests share.
const TEMPLATE: &str = include_str!("../../scripts/haproxy.cfg.in");

/// A running HAProxy.
#[derive(Debug)]
pub struct Balancer {
    child: Child,
    port: u16,
    _folder: tempfile::TempDir,
}

/// HAProxy's binary, when the tests that need it run: `None` in the fast tier, and (after one
/// line saying why) when it is not installed and this is not CI.
pub fn haproxy() -> Option<PathBuf> {
    if !tier::needs("HAProxy") {
        return None;
    }
    let binary = ["/usr/sbin/haproxy", "/usr/bin/haproxy"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.is_file());
    if binary.is_none() {
        tier::missing("HAProxy is not installed (scripts/test installs Debian's haproxy)");
    }
    binary
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

impl Balancer {
    /// HAProxy (`binary`) on a free port, balancing round robin over the instances listening
    /// on `ports` of 127.0.0.1; returns once it accepts connections.
    pub fn start(binary: &Path, ports: &[u16]) -> Self {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let port = free_port();
        let servers: Vec<String> = ports
            .iter()
            .enumerate()
            .map(|(index, instance)| format!("    server i{index} 127.0.0.1:{instance}"))
            .collect();
        let config = TEMPLATE
            .replace("@PORT@", &port.to_string())
            .replace("@SERVERS@", &servers.join("\n"));
        let file = folder.path().join("haproxy.cfg");
        std::fs::write(&file, config).expect("the configuration is written");
        let child = Command::new(binary)
            .arg("-db")
            .arg("-f")
            .arg(&file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("HAProxy starts");
        let balancer = Self {
            child,
            port,
            _folder: folder,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "HAProxy listens within 10 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        balancer
    }

    /// The MCP endpoint through the balancer.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
