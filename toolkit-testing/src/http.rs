//! A local HTTP server for provider tests and benchmarks: it answers each request with the
//! next canned response and records every request byte.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// How many requests a server answering from a function keeps (see [`Server::start_with`]).
pub const ENDLESS_RECORDED: usize = 64;

/// A canned response: status, extra headers, JSON body.
pub type Response = (u16, Vec<(&'static str, String)>, Value);

/// A canned answer of any kind.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A JSON answer, its length declared.
    Json(Response),
    /// `200`, `text/event-stream`, in chunked transfer encoding: each piece written as one
    /// chunk and flushed, in order, `pause` apart, then the last chunk, unless `cut`, when the
    /// connection is closed mid-answer instead.
    Stream {
        /// The body's bytes, cut where the test chooses.
        pieces: Vec<Vec<u8>>,
        /// Whether the connection closes before the body's end.
        cut: bool,
        /// The wait between pieces (a model answering over seconds).
        pause: std::time::Duration,
    },
}

impl Reply {
    /// A stream of `body`, cut into pieces of at most `size` bytes (anywhere: inside lines,
    /// inside characters), ending properly.
    pub fn stream(body: &[u8], size: usize) -> Self {
        Self::paced(body, size, std::time::Duration::ZERO)
    }

    /// The same stream, its pieces `pause` apart.
    pub fn paced(body: &[u8], size: usize, pause: std::time::Duration) -> Self {
        Reply::Stream {
            pieces: body.chunks(size.max(1)).map(<[u8]>::to_vec).collect(),
            cut: false,
            pause,
        }
    }
}

impl From<Response> for Reply {
    fn from(response: Response) -> Self {
        Reply::Json(response)
    }
}

/// One recorded request.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// The request line and headers.
    pub head: String,
    /// The body's bytes.
    pub body: Vec<u8>,
}

/// A local HTTP server answering each request with the next canned response.
pub struct Server {
    /// Where it listens: `http://127.0.0.1:PORT`.
    pub url: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl Server {
    /// A server answering from `responses`, in order.
    pub async fn start(responses: Vec<Response>) -> Self {
        Self::start_with(move |_| None, responses).await
    }

    /// A server answering from `replies`, in order: JSON answers and streams.
    pub async fn start_replies(replies: Vec<Reply>) -> Self {
        Self::serve(move |_| None, replies).await
    }

    /// A server answering from `responses` in order, or from `answer` for a request whose
    /// body it recognises (for endless benchmark loops). It records the first
    /// [`ENDLESS_RECORDED`] requests only: a benchmark reads those of its setup, and a log of
    /// millions would grow (and be copied as it grows) in the very process being timed.
    pub async fn start_with(
        answer: impl Fn(&[u8]) -> Option<Response> + Send + 'static,
        responses: Vec<Response>,
    ) -> Self {
        Self::serve(
            move |body| answer(body).map(Reply::Json),
            responses.into_iter().map(Reply::Json).collect(),
        )
        .await
    }

    /// A server answering from `replies` in order, or from `answer` for a request whose
    /// body it recognises (recorded as [`start_with`](Self::start_with) says).
    pub async fn serve(
        answer: impl Fn(&[u8]) -> Option<Reply> + Send + 'static,
        responses: Vec<Reply>,
    ) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&requests);
        tokio::spawn(async move {
            let mut responses = responses.into_iter();
            while let Ok((mut stream, _)) = listener.accept().await {
                let Some(request) = read_request(&mut stream).await else {
                    continue;
                };
                let canned = answer(&request.body);
                {
                    let mut kept = recorded.lock().unwrap();
                    if canned.is_none() || kept.len() < ENDLESS_RECORDED {
                        kept.push(request);
                    }
                }
                let reply = canned.or_else(|| responses.next()).unwrap_or(Reply::Json((
                    500,
                    Vec::new(),
                    json!({"error": "no response left"}),
                )));
                let (status, headers, body) = match reply {
                    Reply::Json(response) => response,
                    // Written on its own task: a paced stream does not hold up the next
                    // connection.
                    Reply::Stream { pieces, cut, pause } => {
                        tokio::spawn(
                            async move { write_stream(&mut stream, pieces, cut, pause).await },
                        );
                        continue;
                    }
                };
                let body = body.to_string();
                let mut response = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                    body.len()
                );
                for (name, value) in headers {
                    let _ = write!(response, "{name}: {value}\r\n");
                }
                response.push_str("\r\n");
                response.push_str(&body);
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            }
        });
        Self { url, requests }
    }

    /// The requests recorded so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Every recorded byte, heads and bodies, in order.
    pub fn all_bytes(&self) -> Vec<u8> {
        self.requests()
            .into_iter()
            .flat_map(|request| request.head.into_bytes().into_iter().chain(request.body))
            .collect()
    }
}

/// Writes a streamed answer: the head, then each piece as a chunk of its own, flushed, with
/// the Nagle delay off so that each leaves at once.
async fn write_stream(
    stream: &mut tokio::net::TcpStream,
    pieces: Vec<Vec<u8>>,
    cut: bool,
    pause: std::time::Duration,
) {
    let _ = stream.set_nodelay(true);
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\
                transfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for (at, piece) in pieces
        .into_iter()
        .filter(|piece| !piece.is_empty())
        .enumerate()
    {
        if at > 0 && !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        let mut chunk = format!("{:x}\r\n", piece.len()).into_bytes();
        chunk.extend_from_slice(&piece);
        chunk.extend_from_slice(b"\r\n");
        if stream.write_all(&chunk).await.is_err() || stream.flush().await.is_err() {
            return;
        }
    }
    if !cut {
        let _ = stream.write_all(b"0\r\n\r\n").await;
    }
    let _ = stream.shutdown().await;
}

async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<Recorded> {
    let mut buffer = Vec::new();
    // 16 KiB: a buffer of 64 KiB or more would make every free of it consolidate the
    // allocator's small free chunks, slowing the client under test in the same process.
    let mut chunk = vec![0u8; 16 * 1024];
    let head_end = loop {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(at) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buffer.len() < head_end + length {
        let read = stream.read(&mut chunk).await.ok()?;
        if read == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    Some(Recorded {
        head,
        body: buffer[head_end..].to_vec(),
    })
}
