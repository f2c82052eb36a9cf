//! Tools that reach other hosts, and the policy that says which.
//!
//! `probe_url` reaches public addresses only. It resolves the host itself, checks every address
//! the name resolves to, and then pins the connection to exactly those addresses, so a name that
//! resolves differently the second time (DNS rebinding) cannot lead it elsewhere. It uses no
//! proxy and follows no redirect (it reports where one points). A run may allow-list hosts that
//! resolve to private addresses with a [`NetworkPolicy`] in its context:
//!
//! ```
//! use toolkit_builtins::network::NetworkPolicy;
//! use toolkit::ToolContext;
//!
//! let context = ToolContext::new().with_extension(NetworkPolicy::allowing(["intranet.local"]));
//! assert!(context.extension::<NetworkPolicy>().is_some_and(|policy| policy.allows("intranet.local")));
//! ```

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, ToSocketAddrs};
use std::time::Duration;

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

/// Hosts `probe_url` may reach although they resolve to loopback, private, link-local or other
/// non-public addresses. Put one in the run's context with
/// [`ToolContext::with_extension`](toolkit::ToolContext::with_extension); without one, only
/// public addresses are reached.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
#[tool(group = "network", remote)]
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
    let parsed = match Url::parse(&url) {
        Ok(parsed) => parsed,
        Err(error) => return ToolResult::error(format!("Error: not a valid URL: {error}.")),
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        return ToolResult::error(format!(
            "Error: probe_url takes http and https URLs, not \"{}\".",
            parsed.scheme()
        ));
    }
    let Some(host) = parsed.host() else {
        return ToolResult::error("Error: the URL has no host.");
    };
    let host = host.to_owned();
    let Some(port) = parsed.port_or_known_default() else {
        return ToolResult::error("Error: the URL has no port.");
    };
    let allowed = context
        .extension::<NetworkPolicy>()
        .is_some_and(|policy| parsed.host_str().is_some_and(|host| policy.allows(host)));
    let addresses = match resolve(&host, port).await {
        Ok(addresses) => addresses,
        Err(result) => return result,
    };
    if !allowed && let Some(refused) = refused(&host, &addresses) {
        return refusal(refused);
    }
    let shown_url = secrets::mask_secrets(parsed.as_str()).into_owned();
    match get(&parsed, &host, &addresses, max_body_bytes).await {
        Ok(probe) => probe.result(&shown_url, max_body_bytes),
        Err(error) => ToolResult::error(format!(
            "Error: GET {shown_url} failed: {}.",
            error_chain(&error.without_url())
        )),
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
fn refused(host: &Host<String>, addresses: &[SocketAddr]) -> Option<String> {
    let (address, why) = addresses
        .iter()
        .find_map(|address| non_public(address.ip()).map(|why| (address.ip(), why)))?;
    let tail = "probe_url reaches public addresses only, unless the run allow-lists the host.";
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

async fn get(
    url: &Url,
    host: &Host<String>,
    addresses: &[SocketAddr],
    max_body_bytes: usize,
) -> Result<Probe, reqwest::Error> {
    let mut builder = reqwest::Client::builder()
        .no_proxy()
        .redirect(redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        .timeout(REQUEST_TIMEOUT)
        .user_agent(USER_AGENT);
    if let Host::Domain(name) = host {
        // Connect to the addresses checked above, not to a second lookup's.
        builder = builder.resolve_to_addrs(name, addresses);
    }
    let client = builder.build()?;
    let mut response = client.get(url.as_str()).send().await?;
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
    Ok(Probe {
        status,
        headers,
        body,
        complete,
        length,
    })
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
