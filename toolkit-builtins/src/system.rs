//! Tools about the host: environment, status, processes, logs and the time.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::io::{Read as _, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::LazyLock;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sysinfo::{Disks, ProcessRefreshKind, ProcessesToUpdate, System, UpdateKind};
use toolkit::{Table, ToolArtifact, ToolContext, ToolResult, tool};

use toolkit::secrets;

use crate::resources::WorkspaceRoot;
use crate::shared::{Listing, PAGE_LIMIT, check_range, cut, plural, refusal, settle, table_error};
use crate::workspace::{LINE_BYTES, LineReader, RelativePath, Workspace, io_refusal};

/// Longest value shown, in characters.
const VALUE_LIMIT: usize = 300;
/// Processes listed in the content of `list_processes`.
const PROCESSES_IN_CONTENT: usize = 20;
/// Bytes from the end of a log that `fetch_logs` reads.
const LOG_TAIL_BYTES: u64 = 8 * 1024 * 1024;
/// Longest log line shown, in characters.
const LOG_LINE_LIMIT: usize = 300;
/// Most log lines `fetch_logs` returns.
const LOG_LINES_LIMIT: usize = 500;

/// Lists environment variables of the process running the tools, sorted by name. Values of
/// variables whose name says secret (`KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `AUTH`, ...) are
/// replaced by `[REDACTED]`; in other values, secret-shaped parts (URL passwords, API-key
/// shapes, long tokens) become `[REDACTED]` and e-mail addresses `[EMAIL]`.
#[tool(read_only, idempotent, group = "system")]
pub fn get_env(
    /// Only the variable of exactly this name.
    name: Option<String>,
    /// Only variables whose name starts with this (case-sensitive).
    prefix: Option<String>,
    /// The first variable to show, counted from 0 in name order (for the next page).
    #[arg(default = 0)]
    offset: usize,
    /// Most variables to show (1 to 200).
    #[arg(default = 40)]
    limit: usize,
) -> ToolResult {
    if let Err(result) = check_range("limit", limit, 1, PAGE_LIMIT) {
        return result;
    }
    let mut variables: Vec<(String, String)> = std::env::vars_os()
        .map(|(name, value)| {
            (
                name.to_string_lossy().into_owned(),
                value.to_string_lossy().into_owned(),
            )
        })
        .filter(|(variable, _)| name.as_ref().is_none_or(|name| variable == name))
        .filter(|(variable, _)| {
            prefix
                .as_ref()
                .is_none_or(|prefix| variable.starts_with(prefix.as_str()))
        })
        .collect();
    if variables.is_empty() {
        return ToolResult::text(match (&name, &prefix) {
            (Some(name), _) => format!("The variable \"{name}\" is not set."),
            (None, Some(prefix)) => format!("No variable's name starts with \"{prefix}\"."),
            (None, None) => "The environment is empty.".to_owned(),
        });
    }
    variables.sort();
    let total = variables.len();
    let mut redacted = 0;
    let mut listing = Listing::page(["name", "value"], offset, limit);
    for (variable, value) in variables {
        let shown = if secrets::is_secret_name(&variable) {
            secrets::SECRET_MASK.to_owned()
        } else {
            cut(&secrets::mask(&value), VALUE_LIMIT)
        };
        if shown != cut(&value, VALUE_LIMIT) {
            redacted += 1;
        }
        if let Err(error) = listing.push(vec![variable, shown], |cells| {
            format!("{}={}", cells[0], cells[1])
        }) {
            return table_error(&error);
        }
    }
    let filter = match (&name, &prefix) {
        (Some(name), _) => format!(" named \"{name}\""),
        (None, Some(prefix)) => format!(" starting with \"{prefix}\""),
        (None, None) => String::new(),
    };
    let head = format!(
        "{}{filter} ({redacted} redacted):",
        plural(total, "variable", "variables")
    );
    listing.finish(&head, "Environment")
}

/// Shows the raw value of one environment variable, secrets included. For admin callers only.
#[tool(
    read_only,
    group = "system",
    requires_admin,
    enabled_by_default = false
)]
pub fn get_env_raw(
    /// The variable's exact name.
    name: String,
    context: &ToolContext,
) -> ToolResult {
    if !context.is_admin() {
        return refusal(
            "Refused: get_env_raw is for admin callers only. get_env shows the variables with secrets masked.",
        );
    }
    match std::env::var_os(&name) {
        Some(value) => ToolResult::text(format!("{name}={}", value.to_string_lossy())),
        None => refusal(format!(
            "The variable \"{name}\" is not set; get_env lists the variables that are set."
        )),
    }
}

/// Reports the host: operating system, kernel, architecture, uptime, CPUs, load, memory and
/// swap, and the free space of the disk holding the workspace.
#[tool(read_only, group = "system", title = "Reports the host's status")]
pub fn system_status(context: &ToolContext) -> ToolResult {
    let workspace = context
        .extension::<WorkspaceRoot>()
        .map(|root| root.path().to_path_buf());
    status_of_host(workspace)
}

fn status_of_host(workspace: Option<PathBuf>) -> ToolResult {
    let mut rows: Vec<(&str, String)> = Vec::new();
    let unknown = || "unknown".to_owned();
    rows.push((
        "os",
        System::long_os_version().unwrap_or_else(|_| unknown()),
    ));
    rows.push((
        "kernel",
        System::kernel_version().unwrap_or_else(|_| unknown()),
    ));
    rows.push(("architecture", System::cpu_arch()));
    rows.push(("host", System::host_name().unwrap_or_else(|_| unknown())));
    rows.push((
        "uptime",
        System::uptime().map_or_else(|_| unknown(), duration_words),
    ));
    match System::new() {
        Ok(mut system) => {
            system.refresh_cpu_list(sysinfo::CpuRefreshKind::nothing());
            system.refresh_memory();
            let physical =
                System::physical_core_count().map_or_else(|_| unknown(), |count| count.to_string());
            rows.push((
                "cpus",
                format!("{} logical, {physical} physical", system.cpus().len()),
            ));
            rows.push(("memory", usage(system.used_memory(), system.total_memory())));
            rows.push(("swap", usage(system.used_swap(), system.total_swap())));
        }
        Err(error) => rows.push(("memory", format!("unknown ({error})"))),
    }
    rows.push((
        "load average",
        System::load_average().map_or_else(
            |_| unknown(),
            |load| format!("{:.2} {:.2} {:.2}", load.one, load.five, load.fifteen),
        ),
    ));
    if let Some(free) = workspace.and_then(|root| workspace_disk(&root)) {
        rows.push(("workspace disk", free));
    }
    let content = rows
        .iter()
        .map(|(field, value)| format!("{field}: {value}"))
        .collect::<Vec<_>>()
        .join("\n");
    match Table::from_rows(
        ["field", "value"],
        rows.into_iter()
            .map(|(field, value)| [field.to_owned(), value]),
    ) {
        Ok(table) => ToolResult::text_with(content, [ToolArtifact::table("System status", table)]),
        Err(error) => table_error(&error),
    }
}

/// Free and total space of the disk whose mount point is the longest prefix of `root`.
fn workspace_disk(root: &std::path::Path) -> Option<String> {
    let root = std::fs::canonicalize(root).ok()?;
    let disks = Disks::new_with_refreshed_list().ok()?;
    let disk = disks
        .iter()
        .filter(|disk| root.starts_with(disk.mount_point()))
        .max_by_key(|disk| disk.mount_point().as_os_str().len())?;
    Some(format!(
        "{} free of {}",
        bytes_words(disk.available_space()),
        bytes_words(disk.total_space())
    ))
}

fn usage(used: u64, total: u64) -> String {
    if total == 0 {
        return "none".to_owned();
    }
    #[allow(clippy::cast_precision_loss)] // a percentage to one decimal
    let percent = used as f64 * 100.0 / total as f64;
    format!(
        "{} used of {} ({percent:.1}%)",
        bytes_words(used),
        bytes_words(total)
    )
}

/// Bytes in binary units, one decimal: `512 B`, `1.5 KiB`, `2.0 GiB`.
pub(crate) fn bytes_words(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    #[allow(clippy::cast_precision_loss)] // shown to one decimal
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Seconds as `2d 3h 4m 5s`, leading zero units left out.
pub(crate) fn duration_words(seconds: u64) -> String {
    let (days, hours, minutes, seconds) = (
        seconds / 86_400,
        seconds / 3_600 % 24,
        seconds / 60 % 60,
        seconds % 60,
    );
    let mut parts = Vec::new();
    for (value, unit) in [(days, "d"), (hours, "h"), (minutes, "m")] {
        if value > 0 || !parts.is_empty() {
            parts.push(format!("{value}{unit}"));
        }
    }
    parts.push(format!("{seconds}s"));
    parts.join(" ")
}

/// How `list_processes` orders its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ProcessOrder {
    /// Largest resident memory first.
    Memory,
    /// Highest CPU use first.
    Cpu,
    /// Lowest process id first.
    Pid,
    /// By name.
    Name,
}

/// Lists the host's processes: id, name, resident memory, CPU use and status, largest first by
/// default. Command lines are not shown. For admin callers only.
#[tool(read_only, group = "system", requires_admin)]
pub fn list_processes(
    /// Only processes whose name contains this (case-insensitive).
    name_contains: Option<String>,
    /// The order of the rows.
    #[arg(default = ProcessOrder::Memory)]
    sort_by: ProcessOrder,
    /// Most processes to list (1 to 200).
    #[arg(default = 20)]
    limit: usize,
    context: &ToolContext,
) -> ToolResult {
    if !context.is_admin() {
        return refusal(
            "Refused: list_processes is for admin callers only. system_status reports the host's load and memory.",
        );
    }
    if let Err(result) = check_range("limit", limit, 1, 200) {
        return result;
    }
    processes(name_contains.as_deref(), sort_by, limit)
}

fn processes(name_contains: Option<&str>, sort_by: ProcessOrder, limit: usize) -> ToolResult {
    let mut system = match System::new() {
        Ok(system) => system,
        Err(error) => return ToolResult::error(format!("Error: cannot read processes: {error}.")),
    };
    let kind = ProcessRefreshKind::nothing()
        .with_memory()
        .with_cpu()
        .with_exe(UpdateKind::Never);
    system.refresh_processes_specifics(ProcessesToUpdate::All, true, kind);
    // CPU use is measured between two refreshes.
    std::thread::sleep(sysinfo::MINIMUM_CPU_UPDATE_INTERVAL);
    system.refresh_processes_specifics(ProcessesToUpdate::All, true, kind);
    let needle = name_contains.map(str::to_lowercase);
    let mut rows: Vec<_> = system
        .processes()
        .values()
        .map(|process| {
            (
                process.pid().as_u32(),
                process.name().to_string_lossy().into_owned(),
                process.memory(),
                process.cpu_usage(),
                process.status().to_string(),
            )
        })
        .filter(|(_, name, ..)| {
            needle
                .as_ref()
                .is_none_or(|needle| name.to_lowercase().contains(needle))
        })
        .collect();
    let total = rows.len();
    if total == 0 {
        return ToolResult::text(match name_contains {
            Some(needle) => format!("No process's name contains \"{needle}\"."),
            None => "No process is visible.".to_owned(),
        });
    }
    match sort_by {
        ProcessOrder::Memory => rows.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0))),
        ProcessOrder::Cpu => rows.sort_by(|a, b| b.3.total_cmp(&a.3).then(a.0.cmp(&b.0))),
        ProcessOrder::Pid => rows.sort_by_key(|row| row.0),
        ProcessOrder::Name => rows.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0))),
    }
    let mut listing = Listing::new(
        ["pid", "name", "memory", "cpu %", "status"],
        PROCESSES_IN_CONTENT,
    );
    for (pid, name, memory, cpu, status) in rows.into_iter().take(limit) {
        let cells = vec![
            pid.to_string(),
            name,
            bytes_words(memory),
            format!("{cpu:.1}"),
            status,
        ];
        if let Err(error) = listing.push(cells, |cells| {
            format!(
                "{} {} {} {}% {}",
                cells[0], cells[1], cells[2], cells[3], cells[4]
            )
        }) {
            return table_error(&error);
        }
    }
    let order = match sort_by {
        ProcessOrder::Memory => "by memory",
        ProcessOrder::Cpu => "by CPU",
        ProcessOrder::Pid => "by pid",
        ProcessOrder::Name => "by name",
    };
    let head = format!(
        "{} of {total} {order} (pid name memory cpu status):",
        listing.len()
    );
    listing.finish(&head, "Processes")
}

/// A log level, lowest first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum LogLevel {
    /// `TRACE`.
    Trace,
    /// `DEBUG`.
    Debug,
    /// `INFO` (and `NOTICE`).
    Info,
    /// `WARN` or `WARNING`.
    Warn,
    /// `ERROR`, `ERR`, `FATAL`, `CRITICAL` or `PANIC`.
    Error,
}

impl LogLevel {
    fn word(self) -> &'static str {
        match self {
            LogLevel::Trace => "TRACE",
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warn => "WARN",
            LogLevel::Error => "ERROR",
        }
    }
}

static LEVEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(trace|debug|info|notice|warn|warning|error|err|fatal|critical|crit|panic)\b",
    )
    .unwrap_or_else(|error| panic!("invalid level pattern: {error}"))
});

/// The level of a log line: its first level word.
fn level_of(line: &str) -> Option<LogLevel> {
    let word = LEVEL.find(line)?.as_str().to_ascii_lowercase();
    Some(match word.as_str() {
        "trace" => LogLevel::Trace,
        "debug" => LogLevel::Debug,
        "info" | "notice" => LogLevel::Info,
        "warn" | "warning" => LogLevel::Warn,
        _ => LogLevel::Error,
    })
}

/// Masks a log's lines in order, each read beside the line before it, where a name may
/// stand whose value the line holds (`- name: API_TOKEN` then `value: …`): a line a level or a
/// text picks must not lose what masks it. Inside a private key written over several lines,
/// each line is masked whole, since alone a line of its body looks like any other text.
#[derive(Default)]
struct LogMasker {
    previous: String,
    in_key: bool,
}

impl LogMasker {
    /// The next line, masked.
    fn mask(&mut self, raw: &str) -> String {
        let masked = if self.in_key || (raw.contains("-----BEGIN ") && raw.contains("PRIVATE KEY"))
        {
            self.in_key = !raw.contains("-----END ");
            secrets::SECRET_MASK.to_owned()
        } else if self.previous.is_empty() {
            secrets::mask(raw)
        } else {
            let joined = secrets::mask(&format!("{}\n{}", self.previous, secrets::mask(raw)));
            match joined.rsplit_once('\n') {
                Some((_, line)) => line.to_owned(),
                // A mask across both lines.
                None => secrets::SECRET_MASK.to_owned(),
            }
        };
        raw.clone_into(&mut self.previous);
        masked
    }
}

/// Shows the last lines of a log file in the workspace, optionally only those at or above a
/// level or containing a text. E-mail addresses and secret-shaped strings (tokens, passwords,
/// keys) are masked before anything is shown or matched.
#[tool(
    read_only,
    idempotent,
    group = "system",
    title = "Shows the last lines of a log file"
)]
pub fn fetch_logs(
    /// The log file, relative to the workspace root.
    path: String,
    /// How many lines to return (1 to 500), counted from the end.
    #[arg(default = 50)]
    lines: usize,
    /// Only lines at this level or above (lines without a level are then left out).
    level: Option<LogLevel>,
    /// Only lines containing this text (case-insensitive), matched after masking.
    contains: Option<String>,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("lines", lines, 1, LOG_LINES_LIMIT) {
        return result;
    }
    let workspace = match Workspace::open(context) {
        Ok(workspace) => workspace,
        Err(result) => return result,
    };
    let filter = LogFilter {
        lines,
        level,
        contains: contains.map(|text| text.to_lowercase()),
    };
    settle(filter.tail(&workspace, &path))
}

struct LogFilter {
    lines: usize,
    level: Option<LogLevel>,
    contains: Option<String>,
}

impl LogFilter {
    fn tail(&self, workspace: &Workspace, path: &str) -> Result<ToolResult, ToolResult> {
        let path = RelativePath::parse(path)?;
        let mut file = workspace.open_file(&path)?;
        let size = file
            .metadata()
            .map_err(|error| io_refusal(&path, &error))?
            .len();
        let skipped = size.saturating_sub(LOG_TAIL_BYTES);
        file.seek(SeekFrom::Start(skipped))
            .map_err(|error| io_refusal(&path, &error))?;
        let tail = size - skipped;
        // Only the tail measured: a log that grows meanwhile is not read past it.
        let mut reader = LineReader::new(file.take(tail));
        let mut buffer = Vec::new();
        if skipped > 0 {
            // The first line read is probably cut: drop it.
            let dropped = reader
                .read_line(&mut buffer)
                .map_err(|error| io_refusal(&path, &error))?;
            if dropped.is_some_and(|line| line.length >= tail) {
                return Err(refusal(format!(
                    "The last {tail} bytes of \"{}\" hold no whole line (its last line is at least that long); fetch_logs reads only the end of a log. read_file reads it from its first line.",
                    path.shown()
                )));
            }
        }
        let mut kept: VecDeque<[String; 3]> = VecDeque::with_capacity(self.lines);
        let mut total = 0_usize;
        let mut cut_lines = 0_usize;
        let mut log = LogMasker::default();
        while let Some(read) = reader
            .read_line(&mut buffer)
            .map_err(|error| io_refusal(&path, &error))?
        {
            total += 1;
            if read.cut {
                cut_lines += 1;
            }
            let raw = String::from_utf8_lossy(&buffer);
            let raw = raw.trim_end_matches(['\n', '\r']);
            let masked = log.mask(raw);
            let level = level_of(raw);
            if self
                .level
                .is_some_and(|minimum| level.is_none_or(|level| level < minimum))
            {
                continue;
            }
            if self
                .contains
                .as_ref()
                .is_some_and(|needle| !masked.to_lowercase().contains(needle.as_str()))
            {
                continue;
            }
            if kept.len() == self.lines {
                kept.pop_front();
            }
            kept.push_back([
                total.to_string(),
                level.map_or("-", LogLevel::word).to_owned(),
                cut(&masked, LOG_LINE_LIMIT),
            ]);
        }
        let mut filters = String::new();
        if let Some(level) = self.level {
            let _ = write!(filters, " at {} or above", level.word());
        }
        if let Some(needle) = &self.contains {
            let _ = write!(filters, " containing \"{needle}\"");
        }
        let of_what = if skipped > 0 {
            format!("the last {}", plural(total, "line", "lines"))
        } else {
            plural(total, "line", "lines")
        };
        let note = match cut_lines {
            0 => String::new(),
            1 => format!(
                "\n… 1 line is longer than {LINE_BYTES} bytes; only its first {LINE_BYTES} bytes were read."
            ),
            many => format!(
                "\n… {many} lines are longer than {LINE_BYTES} bytes; only the first {LINE_BYTES} bytes of each were read."
            ),
        };
        if kept.is_empty() {
            return Ok(ToolResult::text(format!(
                "None of {of_what} of \"{}\"{filters}.{note}",
                path.shown()
            )));
        }
        let mut listing = Listing::new(["line", "level", "text"], LOG_LINES_LIMIT);
        let found = kept.len();
        for row in kept {
            listing
                .push(row.to_vec(), |cells| format!("{}: {}", cells[0], cells[2]))
                .map_err(|error| table_error(&error))?;
        }
        let head = format!(
            "Last {found} of {of_what} of \"{}\"{filters}:",
            path.shown()
        );
        Ok(listing.finish_noted(&head, &note, "Log lines"))
    }
}

/// The current time (or a given instant) in an IANA time zone (`Europe/Paris`, `UTC`, `local`
/// for the host's zone): the date-time with offset and zone, weekday, abbreviation and Unix
/// time.
#[tool(read_only, group = "system", title = "The current time in a time zone")]
pub fn current_time(
    /// An IANA time zone name, or `local`.
    #[arg(default = "UTC".to_owned())]
    zone: String,
    /// An instant to show instead of now: RFC 3339 (`2024-03-10T11:00:00Z`) or Unix seconds.
    at: Option<String>,
) -> ToolResult {
    let time_zone = if zone == "local" {
        TimeZone::system()
    } else {
        match TimeZone::get(&zone) {
            Ok(time_zone) => time_zone,
            Err(_) => {
                return ToolResult::error(format!(
                    "Error: unknown time zone \"{zone}\"; use an IANA name such as \"Europe/Paris\" or \"UTC\"."
                ));
            }
        }
    };
    let instant = match at.as_deref().map(str::trim) {
        None => Timestamp::now(),
        Some(text) => match parse_instant(text) {
            Some(instant) => instant,
            None => {
                return ToolResult::error(format!(
                    "Error: cannot read \"{text}\" as an instant; give RFC 3339 such as \"2024-03-10T11:00:00Z\" or Unix seconds."
                ));
            }
        },
    };
    let info = time_zone.to_offset_info(instant);
    let abbreviation = info.abbreviation().to_owned();
    let offset = info.offset();
    let zoned = instant.to_zoned_datetime(time_zone);
    ToolResult::text(format!(
        "{zoned} ({}, UTC{offset}, {abbreviation}, Unix time {})",
        zoned.strftime("%A"),
        instant.as_second()
    ))
}

fn parse_instant(text: &str) -> Option<Timestamp> {
    if let Ok(seconds) = text.parse::<i64>() {
        return Timestamp::from_second(seconds).ok();
    }
    text.parse::<Timestamp>().ok()
}
