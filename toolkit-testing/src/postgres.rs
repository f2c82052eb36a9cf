//! A private PostgreSQL server for the tests: Debian's binaries, a data folder under `target/`,
//! one port on 127.0.0.1 (`TOOLKIT_PG_PORT`, default 54329), no Unix socket, trust
//! authentication for the `toolkit` user. The first test that needs it starts it (every test
//! process after that finds it running); `scripts/test` stops it when the tests are done. Each
//! test gets a database of its own.

use std::net::{SocketAddr, TcpStream};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::tier;

/// The running server.
#[derive(Debug)]
pub struct Postgres {
    bin: PathBuf,
    port: u16,
}

/// The server, started if it is not running; `None` in the fast tier, and (after one line saying
/// why) when PostgreSQL is not installed and this is not CI. Under `CI=true` a server that cannot
/// start fails the test.
pub fn postgres() -> Option<&'static Postgres> {
    static SERVER: OnceLock<Result<Postgres, String>> = OnceLock::new();
    if !tier::needs("PostgreSQL") {
        return None;
    }
    match SERVER.get_or_init(start) {
        Ok(server) => Some(server),
        Err(message) => {
            tier::missing(message);
            None
        }
    }
}

impl Postgres {
    /// A new, empty database; its URL.
    pub fn database(&self, label: &str) -> String {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "t_{label}_{}_{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        );
        self.psql("postgres", &format!("CREATE DATABASE {name}"))
            .unwrap_or_else(|error| panic!("creating database {name}: {error}"));
        self.url(&name)
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://toolkit@127.0.0.1:{}/{name}", self.port)
    }

    /// Runs `sql` in database `name` with `psql`; its output (unaligned, tuples only).
    pub fn psql(&self, name: &str, sql: &str) -> Result<String, String> {
        let output = Command::new(self.bin.join("psql"))
            .args(["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1"])
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                "toolkit",
                "-d",
                name,
                "-c",
                sql,
            ])
            .output()
            .map_err(|error| format!("psql: {error}"))?;
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).trim().to_owned())
        }
    }
}

fn port() -> u16 {
    std::env::var("TOOLKIT_PG_PORT")
        .ok()
        .and_then(|port| port.parse().ok())
        .unwrap_or(54329)
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    )
}

/// The newest installed server's binaries: `TOOLKIT_PG_BIN`, else Debian's
/// `/usr/lib/postgresql/<version>/bin`.
fn binaries() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("TOOLKIT_PG_BIN") {
        return Some(PathBuf::from(bin));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("pg_ctl").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn answers(port: u16) -> bool {
    TcpStream::connect_timeout(
        &SocketAddr::from(([127, 0, 0, 1], port)),
        Duration::from_millis(500),
    )
    .is_ok()
}

/// PostgreSQL refuses to run as root: as root, its programs run as the `postgres` user that
/// Debian's package creates, on a folder that user owns.
fn as_server_user(program: &Path) -> Command {
    let root = std::fs::metadata("/proc/self").is_ok_and(|process| process.uid() == 0);
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// `initdb` of a cluster in `data`: the `toolkit` user, trusted, UTF-8.
fn initdb(bin: &Path, data: &Path) -> Command {
    let mut initdb = as_server_user(&bin.join("initdb"));
    initdb
        .arg("-D")
        .arg(data)
        .args(["-U", "toolkit", "--auth=trust", "-E", "UTF8", "--no-locale"]);
    initdb
}

fn run(mut command: Command, what: &str) -> Result<(), String> {
    let output = command
        .output()
        .map_err(|error| format!("{what}: {error}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed: {}{}",
            String::from_utf8_lossy(&output.stdout).trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

fn start() -> Result<Postgres, String> {
    let port = port();
    let bin = binaries().ok_or(
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/pg_ctl; ./scripts/test installs it)",
    )?;
    let server = Postgres { bin, port };
    let home = target().join("postgres");
    std::fs::create_dir_all(&home).map_err(|error| format!("{}: {error}", home.display()))?;
    // One test process starts the server; the others wait for it here, then find it running.
    let lock = std::fs::File::create(home.join("start.lock"))
        .map_err(|error| format!("postgres start lock: {error}"))?;
    lock.lock()
        .map_err(|error| format!("postgres start lock: {error}"))?;
    if answers(port) {
        return Ok(server);
    }
    let root = std::fs::metadata("/proc/self").is_ok_and(|process| process.uid() == 0);
    let data = if root {
        server_user_folder(&home)?
    } else {
        home.join("data")
    };
    // `scripts/test` stops the server through this file.
    std::fs::write(home.join("data-path"), data.as_os_str().as_encoded_bytes())
        .map_err(|error| format!("{}: {error}", home.display()))?;
    if !data.join("PG_VERSION").is_file() {
        run(initdb(&server.bin, &data), "initdb")?;
    }
    let mut pg_ctl = as_server_user(&server.bin.join("pg_ctl"));
    pg_ctl
        .arg("-D")
        .arg(&data)
        .arg("-l")
        .arg(home.join("server.log"))
        .args(["-w", "-t", "60", "-o"])
        .arg(format!(
            "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' \
             -c max_connections=300"
        ))
        .arg("start");
    run(pg_ctl, "pg_ctl start (see target/postgres/server.log)")?;
    // Databases earlier runs left: each test made its own.
    let old = server.psql(
        "postgres",
        "SELECT datname FROM pg_database WHERE datname LIKE 't\\_%'",
    )?;
    for name in old.lines().filter(|name| !name.is_empty()) {
        server.psql("postgres", &format!("DROP DATABASE IF EXISTS {name}"))?;
    }
    Ok(server)
}

/// As root, the data folder belongs to the `postgres` user: `target/postgres/data` when that user
/// can reach it, else a folder of its own under the temporary folder (a checkout under a private
/// home folder, say).
fn server_user_folder(home: &Path) -> Result<PathBuf, String> {
    let chown = |folder: &Path| {
        let mut chown = Command::new("chown");
        chown.arg("postgres:").arg(folder);
        run(chown, "chown of the data folder to the postgres user")
    };
    let reachable = |folder: &Path| {
        let mut test = as_server_user(Path::new("test"));
        test.arg("-w").arg(folder);
        test.status().is_ok_and(|status| status.success())
    };
    chown(home)?;
    if reachable(home) {
        return Ok(home.join("data"));
    }
    let own = std::env::temp_dir().join(format!("toolkit-postgres-{}", port()));
    std::fs::create_dir_all(&own).map_err(|error| format!("{}: {error}", own.display()))?;
    chown(&own)?;
    Ok(own.join("data"))
}

/// A PostgreSQL server of one test's own, to stop and start while instances use it: a data
/// folder in a temporary folder, a free port of 127.0.0.1; stopped and removed when dropped.
#[derive(Debug)]
pub struct OwnServer {
    server: Postgres,
    data: PathBuf,
    log: PathBuf,
    folder: PathBuf,
}

/// A new server of the caller's own; `None` where [`postgres`] is `None`.
pub fn own_server() -> Option<OwnServer> {
    postgres()?;
    let bin = binaries().expect("found by postgres()");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let folder = std::env::temp_dir().join(format!("toolkit-own-postgres-{port}"));
    std::fs::create_dir_all(&folder).expect("a folder for the server");
    let root = std::fs::metadata("/proc/self").is_ok_and(|process| process.uid() == 0);
    if root {
        let mut chown = Command::new("chown");
        chown.arg("postgres:").arg(&folder);
        run(chown, "chown of the data folder to the postgres user").expect("chowned");
    }
    let own = OwnServer {
        server: Postgres { bin, port },
        data: folder.join("data"),
        log: folder.join("server.log"),
        folder,
    };
    run(initdb(&own.server.bin, &own.data), "initdb").expect("a new cluster");
    own.start();
    Some(own)
}

impl OwnServer {
    /// The server, to make databases and ask it.
    pub fn server(&self) -> &Postgres {
        &self.server
    }

    /// Starts it (again), waiting until it accepts connections.
    pub fn start(&self) {
        let mut pg_ctl = as_server_user(&self.server.bin.join("pg_ctl"));
        pg_ctl
            .arg("-D")
            .arg(&self.data)
            .arg("-l")
            .arg(&self.log)
            .args(["-w", "-t", "60", "-o"])
            .arg(format!(
                "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''",
                self.server.port
            ))
            .arg("start");
        run(pg_ctl, "pg_ctl start").expect("the server starts");
    }

    /// Stops it as an operator's restart does (`-m fast`: every connection cut).
    pub fn stop(&self) {
        let mut pg_ctl = as_server_user(&self.server.bin.join("pg_ctl"));
        pg_ctl
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "fast", "-w", "stop"]);
        run(pg_ctl, "pg_ctl stop").expect("the server stops");
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        if self.data.join("postmaster.pid").is_file() {
            self.stop();
        }
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}
