//! Tools that reach other hosts, and the policy that says which.
//!
//! `probe_url` and `fetch_page` reach public addresses only. They resolve the host themselves,
//! check every address the name resolves to, and then pin the connection to exactly those
//! addresses, so a name that resolves differently the second time (DNS rebinding) cannot lead
//! them elsewhere. They use no proxy. `probe_url` follows no redirect (it reports where one
//! points); `fetch_page` follows up to five, checking each new address as it checked the first.
//! A run may allow-list hosts that resolve to private addresses with a [`NetworkPolicy`] in its
//! context:
//!
//! ```
//! use toolkit_builtins::network::NetworkPolicy;
//! use toolkit::ToolContext;
//!
//! let context = ToolContext::new().with_extension(NetworkPolicy::allowing(["intranet.local"]));
//! assert!(context.extension::<NetworkPolicy>().is_some_and(|policy| policy.allows("intranet.local")));
//! ```

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use html5ever::interface::{NodeOrText, TreeSink};
use reqwest::redirect;
use toolkit::{Table, ToolArtifact, ToolContext, ToolResult, tool};
use url::{Host, Url};

use crate::shared::{check_range, refusal};
use toolkit::secrets;

/// Longest body shown, in bytes.
const BODY_LIMIT: usize = 20_000;
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the whole request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// The `User-Agent` sent.
const USER_AGENT: &str = concat!("toolkit-probe/", env!("CARGO_PKG_VERSION"));

/// Hosts `probe_url` and `fetch_page` may reach although they resolve to loopback, private,
/// link-local or other non-public addresses. Put one in the run's context with
/// [`ToolContext::with_extension`](toolkit::ToolContext::with_extension); without one, only
/// public addresses are reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct NetworkPolicy {
    /// Host names or IP addresses, compared without case; IPv6 with or without brackets.
    pub allowed_hosts: Vec<String>,
}

impl NetworkPolicy {
    /// A policy allowing exactly these hosts.
    pub fn allowing<S: Into<String>>(hosts: impl IntoIterator<Item = S>) -> Self {
        Self {
            allowed_hosts: hosts.into_iter().map(Into::into).collect(),
        }
    }

    /// Whether `host` (as in a URL) is allow-listed.
    pub fn allows(&self, host: &str) -> bool {
        let bare = |host: &str| {
            host.trim_start_matches('[')
                .trim_end_matches(']')
                .to_ascii_lowercase()
        };
        let host = bare(host);
        self.allowed_hosts
            .iter()
            .any(|allowed| bare(allowed) == host)
    }
}

/// Why an address is not public, as "a loopback address"; `None` for a public address.
pub fn non_public(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(address) => non_public_v4(address),
        IpAddr::V6(address) => non_public_v6(address),
    }
}

fn non_public_v4(address: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = address.octets();
    Some(match (a, b, c) {
        (0, ..) => "an unspecified address",
        (127, ..) => "a loopback address",
        (10, ..) | (172, 16..=31, _) | (192, 168, _) => "a private address",
        (169, 254, _) if address == Ipv4Addr::new(169, 254, 169, 254) => {
            "the cloud metadata address"
        }
        (169, 254, _) => "a link-local address",
        (100, 64..=127, _) => "a shared (carrier-grade NAT) address",
        (192, 0, 0) => "an IETF protocol address",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (198, 18..=19, _) => "a benchmarking address",
        (224..=239, ..) => "a multicast address",
        (240..=255, ..) => "a reserved address",
        _ => return None,
    })
}

fn non_public_v6(address: Ipv6Addr) -> Option<&'static str> {
    let segments = address.segments();
    let embedded = |high: u16, low: u16| {
        let [a, b] = high.to_be_bytes();
        let [c, d] = low.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    // Every form that carries an IPv4 address is judged by that address.
    match segments {
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d); NAT64,
        // well-known (64:ff9b::/96) and local-use (64:ff9b:1::/48): the low 32 bits.
        [0, 0, 0, 0, 0, 0xffff, high, low]
        | [0, 0, 0, 0, 0xffff, 0, high, low]
        | [0x64, 0xff9b, 0, 0, 0, 0, high, low]
        | [0x64, 0xff9b, 1, _, _, _, high, low] => {
            return non_public_v4(embedded(high, low));
        }
        // IPv4-compatible (::a.b.c.d, deprecated): never routed as the IPv4 address, so
        // reserved even when that address is public.
        [0, 0, 0, 0, 0, 0, high, low] if (high, low) != (0, 0) && (high, low) != (0, 1) => {
            return Some(non_public_v4(embedded(high, low)).unwrap_or("a reserved address"));
        }
        // 6to4 (2002::/16): bits 16 to 48.
        [0x2002, high, low, ..] => return non_public_v4(embedded(high, low)),
        // An ISATAP interface id (…:0:5efe:a.b.c.d or …:200:5efe:a.b.c.d) names an IPv4 host.
        [_, _, _, _, 0 | 0x0200, 0x5efe, high, low] => {
            if let Some(reason) = non_public_v4(embedded(high, low)) {
                return Some(reason);
            }
        }
        _ => {}
    }
    if address.is_unspecified() {
        return Some("an unspecified address");
    }
    if address.is_loopback() {
        return Some("a loopback address");
    }
    if address == Ipv6Addr::new(0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254) {
        return Some("the cloud metadata address");
    }
    Some(match segments {
        [first, ..] if first & 0xffc0 == 0xfe80 => "a link-local address",
        [first, ..] if first & 0xffc0 == 0xfec0 => "a site-local address",
        [first, ..] if first & 0xfe00 == 0xfc00 => "a unique local (private) address",
        [first, ..] if first & 0xff00 == 0xff00 => "a multicast address",
        [0x2001, 0x0db8, ..] => "a documentation address",
        [0x2001, 0, ..] => "a Teredo tunnel address",
        [0x0100, 0, 0, 0, ..] => "a discard address",
        _ => return None,
    })
}

/// Sends one HTTP GET to a public `http` or `https` URL and reports the status, the response
/// headers and the start of the body. Refuses loopback, private, link-local and cloud metadata
/// addresses unless the run allow-lists the host; follows no redirect.
#[tool(
    read_only,
    open_world,
    group = "network",
    remote,
    title = "Sends one HTTP GET to a public URL and reports the response"
)]
pub async fn probe_url(
    /// The URL.
    url: String,
    /// Most bytes of the body to show (0 to 20000).
    #[arg(default = 2_000)]
    max_body_bytes: usize,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("max_body_bytes", max_body_bytes, 0, BODY_LIMIT) {
        return result;
    }
    let parsed = match web_url(&url, "probe_url") {
        Ok(parsed) => parsed,
        Err(result) => return result,
    };
    let target = match Target::checked(&parsed, context, "probe_url").await {
        Ok(target) => target,
        Err(unreached) => return unreached.result(),
    };
    let shown_url = secrets::mask_secrets(parsed.as_str()).into_owned();
    let probe = match target.get(&parsed).await {
        Ok(response) => Probe::read(response, max_body_bytes).await,
        Err(error) => Err(error),
    };
    match probe {
        Ok(probe) => probe.result(&shown_url, max_body_bytes),
        Err(error) => ToolResult::error(format!(
            "Error: GET {shown_url} failed: {}.",
            error_chain(&error.without_url())
        )),
    }
}

/// `url` when it is an http or https URL; else the error to answer.
fn web_url(url: &str, tool: &str) -> Result<Url, ToolResult> {
    let parsed = Url::parse(url)
        .map_err(|error| ToolResult::error(format!("Error: not a valid URL: {error}.")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ToolResult::error(format!(
            "Error: {tool} takes http and https URLs, not \"{}\".",
            parsed.scheme()
        )));
    }
    Ok(parsed)
}

/// A URL's host, checked against the address policy, and the addresses a connection to it may
/// use: exactly those checked.
struct Target {
    host: Host<String>,
    addresses: Vec<SocketAddr>,
}

/// Why [`Target::checked`] gives no target.
enum Unreached {
    /// The address policy refuses the host: the refusal's text.
    Refused(String),
    /// The URL names no host that can be reached: the error to answer.
    Failed(ToolResult),
}

impl Unreached {
    /// The answer for the URL the call was given.
    fn result(self) -> ToolResult {
        match self {
            Self::Refused(text) => refusal(text),
            Self::Failed(result) => result,
        }
    }
}

impl Target {
    /// Resolves `url`'s host and checks every address (unless the run allow-lists the host).
    async fn checked(url: &Url, context: &ToolContext, tool: &str) -> Result<Self, Unreached> {
        let Some(host) = url.host() else {
            return Err(Unreached::Failed(ToolResult::error(
                "Error: the URL has no host.",
            )));
        };
        let host = host.to_owned();
        let Some(port) = url.port_or_known_default() else {
            return Err(Unreached::Failed(ToolResult::error(
                "Error: the URL has no port.",
            )));
        };
        let allowed = context
            .extension::<NetworkPolicy>()
            .is_some_and(|policy| url.host_str().is_some_and(|host| policy.allows(host)));
        let addresses = resolve(&host, port).await.map_err(Unreached::Failed)?;
        if !allowed && let Some(refused) = refused(&host, &addresses, tool) {
            return Err(Unreached::Refused(refused));
        }
        Ok(Self { host, addresses })
    }

    /// One GET of `url` on the checked addresses: no proxy, no redirect followed.
    async fn get(&self, url: &Url) -> Result<reqwest::Response, reqwest::Error> {
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .redirect(redirect::Policy::none())
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .user_agent(USER_AGENT);
        if let Host::Domain(name) = &self.host {
            // Connect to the addresses checked, not to a second lookup's.
            builder = builder.resolve_to_addrs(name, &self.addresses);
        }
        builder.build()?.get(url.as_str()).send().await
    }
}

/// Every address of the host: the address itself, or what the name resolves to, sorted.
async fn resolve(host: &Host<String>, port: u16) -> Result<Vec<SocketAddr>, ToolResult> {
    let mut addresses = match host {
        Host::Ipv4(address) => vec![SocketAddr::new(IpAddr::V4(*address), port)],
        Host::Ipv6(address) => vec![SocketAddr::new(IpAddr::V6(*address), port)],
        Host::Domain(name) => {
            let name = name.clone();
            let lookup = tokio::task::spawn_blocking(move || {
                (name.as_str(), port)
                    .to_socket_addrs()
                    .map(Iterator::collect::<Vec<_>>)
            });
            match lookup.await {
                Ok(Ok(addresses)) => addresses,
                Ok(Err(error)) => {
                    return Err(ToolResult::error(format!(
                        "Error: cannot resolve \"{host}\": {error}."
                    )));
                }
                Err(_) => return Err(ToolResult::error("Error: the lookup was cancelled.")),
            }
        }
    };
    addresses.sort();
    addresses.dedup();
    if addresses.is_empty() {
        return Err(ToolResult::error(format!(
            "Error: \"{host}\" resolves to no address."
        )));
    }
    Ok(addresses)
}

/// The refusal for the first non-public address, if any.
fn refused(host: &Host<String>, addresses: &[SocketAddr], tool: &str) -> Option<String> {
    let (address, why) = addresses
        .iter()
        .find_map(|address| non_public(address.ip()).map(|why| (address.ip(), why)))?;
    let tail =
        format!("{tool} reaches public addresses only, unless the run allow-lists the host.");
    Some(match host {
        Host::Domain(name) => {
            format!("Refused: \"{name}\" resolves to {address}, {why}; {tail}")
        }
        _ => format!("Refused: {address} is {why}; {tail}"),
    })
}

/// What came back.
struct Probe {
    status: reqwest::StatusCode,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    complete: bool,
    length: Option<u64>,
}

impl Probe {
    /// The status, the headers (secrets masked) and at most `max_body_bytes` of the body.
    async fn read(
        mut response: reqwest::Response,
        max_body_bytes: usize,
    ) -> Result<Self, reqwest::Error> {
        let status = response.status();
        let length = response.content_length();
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| {
                let name = name.as_str().to_owned();
                let value = String::from_utf8_lossy(value.as_bytes());
                let value = if secrets::is_secret_name(&name) || name == "set-cookie" {
                    secrets::SECRET_MASK.to_owned()
                } else {
                    secrets::mask_secrets(&value).into_owned()
                };
                (name, value)
            })
            .collect();
        let mut body = Vec::new();
        let mut complete = true;
        while let Some(chunk) = response.chunk().await? {
            let room = max_body_bytes - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                complete = false;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Self {
            status,
            headers,
            body,
            complete,
            length,
        })
    }
}

impl Probe {
    fn result(self, url: &str, max_body_bytes: usize) -> ToolResult {
        let reason = self.status.canonical_reason().unwrap_or("");
        let mut content = format!("GET {url} -> {} {reason}", self.status.as_u16());
        for wanted in ["content-type", "location"] {
            if let Some((name, value)) = self.headers.iter().find(|(name, _)| name == wanted) {
                let _ = write!(content, "\n{name}: {value}");
            }
        }
        if self.status.is_redirection() {
            content.push_str("\n(probe_url follows no redirect)");
        }
        let size = match (self.complete, self.length) {
            (true, _) => format!("{} bytes", self.body.len()),
            (false, Some(length)) => format!("first {} of {length} bytes", self.body.len()),
            (false, None) => format!("first {} bytes; the rest not read", self.body.len()),
        };
        let mut body_text = None;
        match std::str::from_utf8(&self.body) {
            _ if self.body.is_empty() && max_body_bytes == 0 => {
                content.push_str("\nbody: not read (max_body_bytes is 0)");
            }
            _ if self.body.is_empty() => content.push_str("\nbody: empty"),
            Ok(text) => {
                let _ = write!(content, "\nbody ({size}):\n{text}");
                body_text = Some(text.to_owned());
            }
            // A cut may split the last character.
            Err(error) if !self.complete && error.error_len().is_none() => {
                let text = String::from_utf8_lossy(&self.body[..error.valid_up_to()]);
                let _ = write!(content, "\nbody ({size}):\n{text}");
                body_text = Some(text.into_owned());
            }
            Err(_) => {
                let _ = write!(content, "\nbody ({size}): not UTF-8 text");
            }
        }
        match Table::from_rows(
            ["header", "value"],
            self.headers.into_iter().map(|(name, value)| [name, value]),
        ) {
            Ok(table) => {
                let headers = ToolArtifact::table("Response headers", table);
                let body = body_text
                    .map(|text| ToolArtifact::text(format!("Response body ({size})"), text));
                ToolResult::text_with(content, std::iter::once(headers).chain(body))
            }
            Err(error) => ToolResult::error(format!("Error: {error}")),
        }
    }
}

/// Most bytes of a page `fetch_page` reads; the rest is not read.
const PAGE_LIMIT: usize = 2 * 1024 * 1024;
/// Most redirects `fetch_page` follows.
const REDIRECT_LIMIT: usize = 5;
/// Most characters of text in one answer of `fetch_page` (at most 48 000 bytes of UTF-8, so
/// that a part always fits the content bound whole).
const LENGTH_LIMIT: usize = 12_000;
/// Columns HTML is laid out in as text.
const TEXT_WIDTH: usize = 100;
/// The stack of the thread that lays HTML out: its layout recurses as deep as elements nest.
const LAYOUT_STACK: usize = 64 * 1024 * 1024;
/// Deepest nesting of elements laid out as text, below `<html>` and `<body>`; deeper pages
/// (hostile ones: parsing and layout time grow faster than the depth) are refused and can be
/// read with `raw`.
const NESTING_LIMIT: usize = 1_000;
/// Most elements, texts and comments of a page laid out as text: laying out takes about a
/// kilobyte of memory for each, so a page of more (hostile ones: two megabytes of `<p>a</p>`
/// make 520 000) is refused and can be read with `raw`.
const NODE_LIMIT: usize = 100_000;
/// Bytes of HTML parsed between two checks of the depth, the count of nodes and whether the
/// caller still waits.
const PARSE_CHUNK: usize = 16 * 1024;

/// Fetches a web page with HTTP(S) GET and gives its text, `max_length` characters from
/// `start_index`: HTML laid out as readable text (links numbered, their addresses listed at the
/// end), other text as it is. Follows up to 5 redirects, checking every address as it checks the
/// first: public addresses only, unless the run allow-lists the host. Reads at most 2 MB.
#[tool(
    read_only,
    open_world,
    group = "network",
    remote,
    task,
    title = "Fetches a web page as readable text"
)]
pub async fn fetch_page(
    /// The URL (http or https).
    url: String,
    /// The character to start from: 0 for the start; each answer says where the next part
    /// starts.
    #[arg(default = 0)]
    start_index: usize,
    /// Most characters to give (1 to 12000).
    #[arg(default = 5_000)]
    max_length: usize,
    /// Give the page's source as it is, HTML included, instead of its text.
    #[arg(default = false)]
    raw: bool,
    context: &ToolContext,
) -> ToolResult {
    if let Err(result) = check_range("max_length", max_length, 1, LENGTH_LIMIT) {
        return result;
    }
    let mut current = match web_url(&url, "fetch_page") {
        Ok(parsed) => parsed,
        Err(result) => return result,
    };
    let mut hops: Vec<[String; 2]> = Vec::new();
    let page = loop {
        let shown = secrets::mask_secrets(current.as_str()).into_owned();
        let target = match Target::checked(&current, context, "fetch_page").await {
            Ok(target) => target,
            // A refusal of the next hop names the hop, then says why as the first would.
            Err(Unreached::Refused(why)) if !hops.is_empty() => {
                return refusal(format!(
                    "Refused: the page redirects to {shown}, and {}",
                    why.strip_prefix("Refused: ").unwrap_or(&why)
                ));
            }
            Err(unreached) => return unreached.result(),
        };
        let response = match target.get(&current).await {
            Ok(response) => response,
            Err(error) => {
                return ToolResult::error(format!(
                    "Error: GET {shown} failed: {}.",
                    error_chain(&error.without_url())
                ));
            }
        };
        let status = response.status();
        if !status.is_redirection() {
            break Page::read(response, shown, hops, context).await;
        }
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
        let Some(location) = location else {
            return ToolResult::error(format!(
                "Error: GET {shown} -> {} redirects without saying where (no Location header).",
                status.as_u16()
            ));
        };
        hops.push([status.as_u16().to_string(), shown.clone()]);
        if hops.len() > REDIRECT_LIMIT {
            return ToolResult::error(format!(
                "Error: GET {url} was redirected more than {REDIRECT_LIMIT} times (last to {}); fetch_page stopped there.",
                secrets::mask_secrets(&location)
            ));
        }
        current = match current.join(&location) {
            Ok(next) if matches!(next.scheme(), "http" | "https") => next,
            Ok(next) => {
                return ToolResult::error(format!(
                    "Error: {shown} redirects to a \"{}\" URL; fetch_page follows http and https only.",
                    next.scheme()
                ));
            }
            Err(error) => {
                return ToolResult::error(format!(
                    "Error: {shown} redirects to \"{}\", which is not a valid URL: {error}.",
                    secrets::mask_secrets(&location)
                ));
            }
        };
    };
    match page {
        Ok(page) => page.answer(start_index, max_length, raw, context).await,
        Err(result) => result,
    }
}

/// A page as read: where it came from, its type and its body (at most [`PAGE_LIMIT`] bytes).
struct Page {
    url: String,
    status: reqwest::StatusCode,
    kind: Kind,
    mime: String,
    encoding: &'static encoding_rs::Encoding,
    body: Vec<u8>,
    complete: bool,
    hops: Vec<[String; 2]>,
}

/// What a page's body is, for turning it into text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Html,
    Text,
}

impl Page {
    /// The page's body, at most [`PAGE_LIMIT`] bytes of it, reporting how much came so far
    /// (of its announced length, when it has one).
    async fn read(
        mut response: reqwest::Response,
        url: String,
        hops: Vec<[String; 2]>,
        context: &ToolContext,
    ) -> Result<Self, ToolResult> {
        let status = response.status();
        let expected = response
            .content_length()
            .map(|length| length.min(PAGE_LIMIT as u64));
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
            .unwrap_or_default();
        let (mime, charset) = media_type(&content_type);
        let mut body = Vec::new();
        let mut complete = true;
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    let room = PAGE_LIMIT - body.len();
                    if chunk.len() > room {
                        body.extend_from_slice(&chunk[..room]);
                        complete = false;
                        break;
                    }
                    body.extend_from_slice(&chunk);
                    context.progress(body.len() as u64, expected, "bytes received");
                }
                Ok(None) => break,
                Err(error) => {
                    return Err(ToolResult::error(format!(
                        "Error: GET {url} failed while reading the body: {}.",
                        error_chain(&error.without_url())
                    )));
                }
            }
        }
        if !status.is_success() {
            let reason = status.canonical_reason().unwrap_or("");
            return Err(ToolResult::error(format!(
                "Error: GET {url} -> {} {reason}.",
                status.as_u16()
            )));
        }
        let Some(kind) = kind_of(&mime, &body) else {
            return Err(ToolResult::error(format!(
                "Error: {url} is {mime}, not a page: fetch_page reads HTML and text."
            )));
        };
        let encoding = charset
            .and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()))
            .unwrap_or(encoding_rs::UTF_8);
        Ok(Self {
            url,
            status,
            kind,
            mime: if mime.is_empty() {
                "no type given".to_owned()
            } else {
                mime
            },
            encoding,
            body,
            complete,
            hops,
        })
    }

    /// The part of the page's text the model asked for, and the whole text for people. The
    /// part is cut from the text as the run's content filter passes it, so that no part, however
    /// small, shows a piece of what the filter hides (a secret rebuilt from slices).
    async fn answer(
        self,
        start_index: usize,
        max_length: usize,
        raw: bool,
        context: &ToolContext,
    ) -> ToolResult {
        // A byte order mark overrides the declared charset; a cut may split the last character.
        let (decoded, _, _) = self.encoding.decode(&self.body);
        let source = decoded.into_owned();
        let laid_out = self.kind == Kind::Html && !raw;
        // The layout joins a page's cells and lines (a tab becomes a space), so the filter reads
        // the source too: the model's text is laid out from the source as the filter passes it.
        let masked_source = match laid_out.then(|| context.filter_content(&source)) {
            Some(Cow::Owned(masked)) => Some(masked),
            _ => None,
        };
        let text = if laid_out {
            match layout(source).await {
                Ok(text) => text,
                Err(Unlaid::TooDeep) => {
                    return ToolResult::error(format!(
                        "Error: the HTML of {} nests elements more than {NESTING_LIMIT} deep, too deep to lay out as text; fetch it with raw set to true.",
                        self.url
                    ));
                }
                Err(Unlaid::TooMany) => {
                    return ToolResult::error(format!(
                        "Error: the HTML of {} has more than {NODE_LIMIT} elements, texts and comments, too many to lay out as text; fetch it with raw set to true.",
                        self.url
                    ));
                }
                Err(Unlaid::Failed(why)) => {
                    return ToolResult::error(format!(
                        "Error: the HTML of {} could not be laid out as text ({why}); fetch it with raw set to true.",
                        self.url
                    ));
                }
            }
        } else {
            source
        };
        let masked_text = match masked_source {
            // A page the layout refuses masked is shown as its masked source.
            Some(masked) => Some(layout(masked.clone()).await.unwrap_or(masked)),
            None => None,
        };
        let shown = context.filter_content(masked_text.as_deref().unwrap_or(&text));
        let total = shown.chars().count();
        if start_index > 0 && start_index >= total {
            return ToolResult::error(format!(
                "Error: start_index {start_index} is past the end of the text ({total} characters)."
            ));
        }
        let start = byte_at(&shown, start_index);
        let end = byte_at(&shown[start..], max_length) + start;
        let shown_end = start_index + shown[start..end].chars().count();
        let reason = self.status.canonical_reason().unwrap_or("");
        let mut reply = format!(
            "GET {} -> {} {reason} ({}, {} bytes{}{})",
            self.url,
            self.status.as_u16(),
            self.mime,
            self.body.len(),
            if self.complete {
                ""
            } else {
                "; the page is longer and was cut there"
            },
            match self.hops.len() {
                0 => String::new(),
                1 => ", after 1 redirect".to_owned(),
                hops => format!(", after {hops} redirects"),
            }
        );
        let what = if self.kind == Kind::Html && !raw {
            "text"
        } else {
            "source"
        };
        if total == 0 {
            let _ = write!(reply, "\nThe page has no {what}.");
        } else if shown_end < total {
            let _ = write!(
                reply,
                "\n{what} characters {start_index} to {shown_end} of {total}; call fetch_page with start_index {shown_end} for the next part.\n\n{}",
                &shown[start..end]
            );
        } else {
            let _ = write!(
                reply,
                "\n{what} characters {start_index} to {shown_end} of {total} (the end).\n\n{}",
                &shown[start..end]
            );
        }
        let artifact_label = format!("Page {what} ({} characters)", text.chars().count());
        drop(shown);
        let mut artifacts = Vec::new();
        if !self.hops.is_empty() {
            match Table::from_rows(["status", "from"], self.hops) {
                Ok(table) => artifacts.push(ToolArtifact::table("Redirects followed", table)),
                Err(error) => return ToolResult::error(format!("Error: {error}")),
            }
        }
        artifacts.push(ToolArtifact::text(artifact_label, text));
        ToolResult::text_with(reply, artifacts)
    }
}

/// The byte offset of character `index` of `text` (its length when `index` is past the end).
fn byte_at(text: &str, index: usize) -> usize {
    text.char_indices()
        .nth(index)
        .map_or(text.len(), |(offset, _)| offset)
}

/// A `Content-Type`'s media type (lower case, no parameters) and its charset, if any.
fn media_type(content_type: &str) -> (String, Option<String>) {
    let mut parts = content_type.split(';');
    let mime = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let charset = parts.find_map(|part| {
        let (name, value) = part.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_owned())
    });
    (mime, charset)
}

/// How to read a body of this media type; `None` for what is not text (an image, a PDF, ...).
/// Without a type, a body that starts like HTML is HTML and one that is UTF-8 is text.
fn kind_of(mime: &str, body: &[u8]) -> Option<Kind> {
    match mime {
        "text/html" | "application/xhtml+xml" => Some(Kind::Html),
        "" => {
            let start = String::from_utf8_lossy(&body[..body.len().min(512)]).to_ascii_lowercase();
            let start = start.trim_start();
            if start.starts_with("<!doctype html") || start.starts_with("<html") {
                Some(Kind::Html)
            } else if std::str::from_utf8(body).is_ok() {
                Some(Kind::Text)
            } else {
                None
            }
        }
        _ if mime.starts_with("text/")
            || matches!(
                mime,
                "application/json" | "application/xml" | "application/javascript"
            )
            || mime.ends_with("+json")
            || mime.ends_with("+xml") =>
        {
            Some(Kind::Text)
        }
        _ => None,
    }
}

/// Why HTML was not laid out as text.
enum Unlaid {
    /// Its elements nest deeper than [`NESTING_LIMIT`].
    TooDeep,
    /// It has more than [`NODE_LIMIT`] nodes.
    TooMany,
    /// The layout failed, or could not start.
    Failed(String),
}

/// HTML laid out as text, on a thread of its own with a large stack (the layout recurses as
/// deep as the page's elements nest). The page is parsed a chunk at a time into a tree whose
/// depth and size are watched as it grows: a page nesting deeper than [`NESTING_LIMIT`],
/// however its tags are spelled, or holding more than [`NODE_LIMIT`] nodes, is refused as soon
/// as the parser gets there, and the thread stops between chunks once this future is dropped
/// (the call's timeout), so no work outlives the call.
async fn layout(html: String) -> Result<String, Unlaid> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = Arc::clone(&stop);
    let started = std::thread::Builder::new()
        .name("toolkit-fetch-page-layout".to_owned())
        .stack_size(LAYOUT_STACK)
        .spawn(move || {
            let _ = sender.send(lay_out(&html, &stopped));
        });
    if let Err(error) = started {
        return Err(Unlaid::Failed(format!(
            "no thread could be started: {error}"
        )));
    }
    let _stop = RaiseOnDrop(stop);
    receiver
        .await
        .unwrap_or_else(|_| Err(Unlaid::Failed("the layout stopped".to_owned())))
}

/// Raises its flag when dropped.
struct RaiseOnDrop(Arc<AtomicBool>);

impl Drop for RaiseOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// [`layout`]'s work, on its thread.
fn lay_out(html: &str, stop: &AtomicBool) -> Result<String, Unlaid> {
    use html5ever::tendril::{StrTendril, TendrilSink as _};
    let deepest = Rc::new(Cell::new(0));
    let nodes = Rc::new(Cell::new(0));
    let sink = Watched {
        dom: html2text::RcDom::default(),
        depths: RefCell::new(HashMap::new()),
        deepest: Rc::clone(&deepest),
        nodes: Rc::clone(&nodes),
    };
    let options = html5ever::ParseOpts {
        tree_builder: html5ever::tree_builder::TreeBuilderOpts {
            scripting_enabled: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut parser = html5ever::parse_document(sink, options);
    // `<html>` and `<body>` add two levels every page has.
    let limit = NESTING_LIMIT + 2;
    let mut rest = html;
    while !rest.is_empty() {
        let mut end = rest.len().min(PARSE_CHUNK);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        parser.process(StrTendril::from_slice(&rest[..end]));
        rest = &rest[end..];
        if deepest.get() > limit {
            return Err(Unlaid::TooDeep);
        }
        if nodes.get() > NODE_LIMIT {
            return Err(Unlaid::TooMany);
        }
        if stop.load(Ordering::Relaxed) {
            return Err(Unlaid::Failed("the call stopped".to_owned()));
        }
    }
    let dom = parser.finish();
    // What the parser moved after inserting it is measured on the finished tree.
    if depth_of(&dom.document) > limit {
        return Err(Unlaid::TooDeep);
    }
    let config = html2text::config::plain();
    let tree = config
        .dom_to_render_tree(&dom)
        .map_err(|error| Unlaid::Failed(error.to_string()))?;
    if stop.load(Ordering::Relaxed) {
        return Err(Unlaid::Failed("the call stopped".to_owned()));
    }
    config
        .render_to_string(tree, TEXT_WIDTH)
        .map_err(|error| Unlaid::Failed(error.to_string()))
}

/// How deep elements nest under `root`, walked without recursion.
fn depth_of(root: &html2text::Handle) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(root.clone(), 0)];
    while let Some((node, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        for child in node.children.borrow().iter() {
            if matches!(child.data, html2text::Element { .. }) {
                pending.push((child.clone(), depth + 1));
            }
        }
    }
    deepest
}

/// A DOM being built that knows how deep each element was put, the deepest so far, and how many
/// nodes were made (every text appended counts, though adjacent texts merge).
struct Watched {
    dom: html2text::RcDom,
    /// Depth of each element put in the tree, by its address.
    depths: RefCell<HashMap<usize, usize>>,
    deepest: Rc<Cell<usize>>,
    nodes: Rc<Cell<usize>>,
}

impl Watched {
    fn key(node: &html2text::Handle) -> usize {
        Rc::as_ptr(node).cast::<()>() as usize
    }

    fn depth(&self, node: &html2text::Handle) -> usize {
        self.depths
            .borrow()
            .get(&Self::key(node))
            .copied()
            .unwrap_or(0)
    }

    /// Records `child` put at `depth`.
    fn put(&self, child: &NodeOrText<html2text::Handle>, depth: usize) {
        match child {
            NodeOrText::AppendNode(node) => {
                self.depths.borrow_mut().insert(Self::key(node), depth);
                self.deepest.set(self.deepest.get().max(depth));
            }
            NodeOrText::AppendText(_) => self.count(),
        }
    }

    fn count(&self) {
        self.nodes.set(self.nodes.get() + 1);
    }
}

impl TreeSink for Watched {
    type Handle = html2text::Handle;
    type Output = html2text::RcDom;
    type ElemName<'a>
        = <html2text::RcDom as TreeSink>::ElemName<'a>
    where
        Self: 'a;

    fn finish(self) -> html2text::RcDom {
        self.dom
    }

    fn parse_error(&self, message: Cow<'static, str>) {
        self.dom.parse_error(message);
    }

    fn get_document(&self) -> Self::Handle {
        self.dom.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a Self::Handle) -> Self::ElemName<'a> {
        self.dom.elem_name(target)
    }

    fn create_element(
        &self,
        name: html5ever::QualName,
        attributes: Vec<html5ever::Attribute>,
        flags: html5ever::tree_builder::ElementFlags,
    ) -> Self::Handle {
        self.count();
        self.dom.create_element(name, attributes, flags)
    }

    fn create_comment(&self, text: html5ever::tendril::StrTendril) -> Self::Handle {
        self.count();
        self.dom.create_comment(text)
    }

    fn create_pi(
        &self,
        target: html5ever::tendril::StrTendril,
        data: html5ever::tendril::StrTendril,
    ) -> Self::Handle {
        self.dom.create_pi(target, data)
    }

    fn append(&self, parent: &Self::Handle, child: NodeOrText<Self::Handle>) {
        self.put(&child, self.depth(parent) + 1);
        self.dom.append(parent, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Self::Handle,
        previous: &Self::Handle,
        child: NodeOrText<Self::Handle>,
    ) {
        self.put(&child, self.depth(element).max(self.depth(previous) + 1));
        self.dom
            .append_based_on_parent_node(element, previous, child);
    }

    fn append_doctype_to_document(
        &self,
        name: html5ever::tendril::StrTendril,
        public_id: html5ever::tendril::StrTendril,
        system_id: html5ever::tendril::StrTendril,
    ) {
        self.dom
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn mark_script_already_started(&self, node: &Self::Handle) {
        self.dom.mark_script_already_started(node);
    }

    fn pop(&self, node: &Self::Handle) {
        self.dom.pop(node);
    }

    fn get_template_contents(&self, target: &Self::Handle) -> Self::Handle {
        let contents = self.dom.get_template_contents(target);
        self.depths
            .borrow_mut()
            .insert(Self::key(&contents), self.depth(target) + 1);
        contents
    }

    fn same_node(&self, x: &Self::Handle, y: &Self::Handle) -> bool {
        self.dom.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: html5ever::tree_builder::QuirksMode) {
        self.dom.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &Self::Handle, new_node: NodeOrText<Self::Handle>) {
        self.put(&new_node, self.depth(sibling));
        self.dom.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&self, target: &Self::Handle, attributes: Vec<html5ever::Attribute>) {
        self.dom.add_attrs_if_missing(target, attributes);
    }

    fn associate_with_form(
        &self,
        target: &Self::Handle,
        form: &Self::Handle,
        nodes: (&Self::Handle, Option<&Self::Handle>),
    ) {
        self.dom.associate_with_form(target, form, nodes);
    }

    fn remove_from_parent(&self, target: &Self::Handle) {
        self.dom.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &Self::Handle, new_parent: &Self::Handle) {
        let depth = self.depth(new_parent) + 1;
        for child in node.children.borrow().iter() {
            self.put(&NodeOrText::AppendNode(child.clone()), depth);
        }
        self.dom.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Self::Handle) -> bool {
        self.dom.is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&self, line: u64) {
        self.dom.set_current_line(line);
    }

    fn allow_declarative_shadow_roots(&self, parent: &Self::Handle) -> bool {
        self.dom.allow_declarative_shadow_roots(parent)
    }

    fn attach_declarative_shadow(
        &self,
        location: &Self::Handle,
        template: &Self::Handle,
        attributes: &[html5ever::Attribute],
    ) -> bool {
        self.dom
            .attach_declarative_shadow(location, template, attributes)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &Self::Handle) {
        self.dom.maybe_clone_an_option_into_selectedcontent(option);
    }
}

/// An error with its causes, `: `-separated.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
