//! `sycl-analyzer daemon`: JSON-RPC 2.0 for build systems on a Unix socket.
//!
//! Framing: one JSON message per line (newline-delimited JSON), at most [`MAX_MESSAGE`] bytes; a
//! longer line is refused without being buffered and the connection stays usable. Each
//! connection is served in order; any number of clients (up to [`Limits::max_connections`]) are served
//! at once. Requests read the current snapshot; `sycl/reloadConfig` swaps in a new one.

use std::collections::HashMap;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{watch, Semaphore};
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{
    AnyDelimiterCodec, AnyDelimiterCodecError, Decoder, Encoder, Framed, LinesCodec,
};

use super::{codes, handle, is_heavy, Outcome, RpcError, Snapshot};

pub const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// What one daemon grants its clients.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once; one more is answered with an error and closed.
    pub max_connections: usize,
    /// A connection that completes no message for this long is closed, so a client that
    /// stalls (or trickles a line byte by byte) cannot hold a slot for ever.
    pub idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 256,
            idle_timeout: Duration::from_secs(600),
        }
    }
}

/// Makes the first root the daemon's working directory, so every file it names is named
/// relative to the project root whatever directory the daemon was started from (clients in
/// other directories get the root in each answer). Returns the socket, the roots (the first
/// as `.`, the others relative to it when under it) and the config files, as absolute
/// paths where they were relative to the old directory.
pub fn settle(
    socket: &Path,
    roots: &[PathBuf],
    configs: &[PathBuf],
) -> Result<(PathBuf, Vec<PathBuf>, Vec<PathBuf>), String> {
    use crate::workspace::absolute;
    let first = roots
        .first()
        .map_or_else(|| absolute(Path::new(".")), |r| absolute(r));
    if !first.is_dir() {
        return Err(format!(
            "the root '{}' is not a directory",
            roots
                .first()
                .map_or(first.clone(), PathBuf::clone)
                .display()
        ));
    }
    let socket = absolute(socket);
    let configs: Vec<PathBuf> = configs.iter().map(|c| absolute(c)).collect();
    let others = roots.iter().skip(1).map(|r| {
        let abs = absolute(r);
        match abs.strip_prefix(&first) {
            Ok(rest) => crate::workspace::tidy(rest),
            Err(_) => abs,
        }
    });
    let roots: Vec<PathBuf> = std::iter::once(PathBuf::from(".")).chain(others).collect();
    std::env::set_current_dir(&first)
        .map_err(|e| format!("cannot enter the root '{}': {e}", first.display()))?;
    Ok((socket, roots, configs))
}

/// `$XDG_RUNTIME_DIR/sycl-analyzer/daemon.sock`, else a per-user directory in the temp dir.
pub fn default_socket() -> PathBuf {
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d).join("sycl-analyzer"),
        // SAFETY: getuid has no preconditions and cannot fail.
        None => std::env::temp_dir().join(format!("sycl-analyzer-{}", unsafe { libc::getuid() })),
    };
    dir.join("daemon.sock")
}

/// Binds the socket: the directory is made private (0700), the socket 0600; a socket file left
/// by a killed daemon is replaced, a live daemon on it is an error.
pub fn bind(path: &Path) -> Result<std::os::unix::net::UnixListener, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.exists() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        }
    }
    if path.exists() {
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(format!(
                "another daemon is already serving '{}'; stop it first (or use --socket)",
                path.display()
            ));
        }
        std::fs::remove_file(path)
            .map_err(|e| format!("cannot remove stale socket '{}': {e}", path.display()))?;
    }
    let listener = std::os::unix::net::UnixListener::bind(path)
        .map_err(|e| format!("cannot listen on '{}': {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| format!("cannot restrict '{}': {e}", path.display()))?;
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    Ok(listener)
}

/// The snapshot every connection reads; whoever owns the state swaps in the next one.
pub type Shared = Arc<RwLock<Arc<Snapshot>>>;

/// Newline-delimited frames with a size cap. A framed stream ends at the first decode error, so
/// an oversized or non-UTF-8 line is passed up as a value (the codec discards the rest of an
/// oversized one) and the connection goes on.
pub struct CappedLines(AnyDelimiterCodec);

/// One frame read from a connection.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    Line(String),
    Oversized,
    NotUtf8,
}

impl Default for CappedLines {
    fn default() -> Self {
        Self(AnyDelimiterCodec::new_with_max_length(
            b"\n".to_vec(),
            b"\n".to_vec(),
            MAX_MESSAGE,
        ))
    }
}

impl CappedLines {
    fn frame(chunk: Option<tokio_util::bytes::Bytes>) -> Option<Frame> {
        let chunk = chunk?;
        let chunk = chunk.strip_suffix(b"\r").unwrap_or(&chunk);
        Some(match std::str::from_utf8(chunk) {
            Ok(line) => Frame::Line(line.to_string()),
            Err(_) => Frame::NotUtf8,
        })
    }
}

impl Decoder for CappedLines {
    type Item = Frame;
    type Error = AnyDelimiterCodecError;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, Self::Error> {
        match self.0.decode(buf) {
            Ok(chunk) => Ok(Self::frame(chunk)),
            Err(AnyDelimiterCodecError::MaxChunkLengthExceeded) => Ok(Some(Frame::Oversized)),
            Err(e) => Err(e),
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, Self::Error> {
        match self.0.decode_eof(buf) {
            Ok(chunk) => Ok(Self::frame(chunk)),
            Err(AnyDelimiterCodecError::MaxChunkLengthExceeded) => Ok(Some(Frame::Oversized)),
            Err(e) => Err(e),
        }
    }
}

impl Encoder<String> for CappedLines {
    type Error = AnyDelimiterCodecError;

    fn encode(&mut self, line: String, buf: &mut BytesMut) -> Result<(), Self::Error> {
        self.0.encode(line, buf)
    }
}

/// Serves `listener` (from [`bind`] on `socket`) until `shutdown` or a signal. Blocks the
/// calling thread on its own runtime; removes the socket when it stops.
pub fn run(
    std_listener: std::os::unix::net::UnixListener,
    socket: &Path,
    snapshot: Snapshot,
    limits: Limits,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let config_paths = snapshot.config_paths.clone();
    let trees = super::projects::absolute_roots(&snapshot.roots);
    let home = trees
        .first()
        .cloned()
        .unwrap_or_else(|| crate::workspace::absolute(Path::new(".")));
    let projects = Arc::new(super::projects::Projects::at(home.clone()));
    let snapshot = Snapshot {
        projects: Some(projects.clone()),
        ..snapshot
    };
    let state: Shared = Arc::new(RwLock::new(Arc::new(snapshot)));
    // Config files reload by themselves when they change on disk; sources and compilation
    // databases change the live projects.
    let watched = state.clone();
    // The root's parent is watched too: a root deleted and made again is seen coming back.
    let mut files = config_paths.clone();
    files.push(home.clone());
    let watcher: Arc<Mutex<Option<crate::watch::Watcher>>> = Arc::default();
    let rewatch = watcher.clone();
    let started = crate::watch::watch(&files, &trees, move |change| {
        if projects.changed(&change) {
            // Not on the watcher's own thread, which delivers the events being waited for.
            let (w, home) = (rewatch.clone(), home.clone());
            std::thread::spawn(move || {
                if let Some(w) = w.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
                    if let Err(e) = w.watch_tree(&home) {
                        tracing::warn!("{e}");
                    }
                }
            });
        }
        let ours = config_paths.iter().any(|p| change.touches(p));
        if ours {
            let current = watched
                .read()
                .expect("snapshot lock is never poisoned")
                .clone();
            let (next, problems) = current.reloaded();
            for p in problems {
                tracing::warn!("{p}");
            }
            *watched.write().expect("snapshot lock is never poisoned") = Arc::new(next);
        }
    });
    let watcher = match started {
        Ok(w) => {
            *watcher.lock().unwrap_or_else(|e| e.into_inner()) = Some(w);
            Ok(watcher)
        }
        Err(e) => Err(e),
    };
    if let Err(e) = &watcher {
        tracing::warn!(
            "{e}; use sycl/reloadConfig after editing config files (sources are still read \
             again when a request names them)"
        );
    }
    let result = runtime.block_on(async move {
        let listener = UnixListener::from_std(std_listener).map_err(|e| e.to_string())?;
        // Said only now: a daemon that could not bind, or failed to start, never claims it.
        tracing::info!(socket = %socket.display(), "daemon listening");
        serve(listener, state, limits).await;
        Ok(())
    });
    // The watcher's callback holds the watcher (to watch a root made anew): taken out, it
    // stops.
    if let Ok(w) = &watcher {
        drop(w.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
    let _ = std::fs::remove_file(socket);
    result
}

/// Serves connections until `shutdown` or Ctrl-C.
pub async fn serve(listener: UnixListener, state: Shared, limits: Limits) {
    let (stop_tx, mut stop_rx) = watch::channel(false);
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    // Analyses run at most one per core: more would only share the cores and multiply memory.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let heavy = Arc::new(Semaphore::new(cores));
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                match slots.clone().try_acquire_owned() {
                    Ok(permit) => {
                        let (state, stop, heavy) = (state.clone(), stop_tx.clone(), heavy.clone());
                        tokio::spawn(async move {
                            connection(stream, state, stop, heavy, limits.idle_timeout).await;
                            drop(permit);
                        });
                    }
                    Err(_) => {
                        let mut framed = Framed::new(stream, LinesCodec::new());
                        let e = RpcError::new(codes::INTERNAL_ERROR, format!("too many connections (limit {})", limits.max_connections));
                        let _ = framed.send(error_response(Value::Null, &e).to_string()).await;
                    }
                }
            }
            _ = stop_rx.changed() => break,
            _ = tokio::signal::ctrl_c() => break,
        }
    }
}

fn error_response(id: Value, e: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": e.to_json() })
}

async fn connection(
    stream: UnixStream,
    state: Shared,
    stop: watch::Sender<bool>,
    heavy: Arc<Semaphore>,
    idle_timeout: Duration,
) {
    let mut framed = Framed::new(stream, CappedLines::default());
    let mut subscription: Option<Subscription> = None;
    loop {
        // A subscriber waits for changes as well as for messages, and is never idle.
        let next = match subscription.as_mut() {
            Some(sub) => tokio::select! {
                n = framed.next() => n,
                changed = sub.changes.changed() => {
                    if changed.is_err() || !publish(&mut framed, &state, &heavy, sub).await {
                        return;
                    }
                    continue;
                }
            },
            None => match tokio::time::timeout(idle_timeout, framed.next()).await {
                Ok(n) => n,
                Err(_) => return,
            },
        };
        let Some(next) = next else { return };
        let reply = match next {
            Ok(Frame::Line(line)) if line.trim().is_empty() => continue,
            Ok(Frame::Line(line)) if is_subscription(&line) => {
                let Ok(Request { id, method, params }) = parse_request(&line) else {
                    continue;
                };
                let reply = |result: Value| {
                    id.clone()
                        .map(|id| json!({ "jsonrpc": "2.0", "id": id, "result": result }))
                };
                if method == "sycl/unsubscribe" {
                    subscription = None;
                    reply(json!({ "subscribed": false }))
                } else {
                    let snapshot = state
                        .read()
                        .expect("snapshot lock is never poisoned")
                        .clone();
                    let Some(projects) = snapshot.projects.clone() else {
                        let e = RpcError::new(
                            codes::METHOD_NOT_FOUND,
                            "sycl/subscribe is served by `sycl-analyzer daemon` only",
                        );
                        if let Some(id) = id {
                            if send(&mut framed, error_response(id, &e)).await.is_err() {
                                return;
                            }
                        }
                        continue;
                    };
                    if let Some(r) = reply(json!({ "subscribed": true })) {
                        if send(&mut framed, r).await.is_err() {
                            return;
                        }
                    }
                    let mut sub = Subscription {
                        params,
                        changes: projects.subscribe(),
                        sent: HashMap::new(),
                        published: false,
                    };
                    sub.changes.mark_unchanged();
                    // The current findings first, then each change.
                    if !publish(&mut framed, &state, &heavy, &mut sub).await {
                        return;
                    }
                    subscription = Some(sub);
                    continue;
                }
            }
            Ok(Frame::Line(line)) => {
                let (reply, shutdown) = message(&line, &state, &heavy).await;
                if shutdown {
                    if let Some(r) = reply {
                        let _ = framed.send(r.to_string()).await;
                    }
                    let _ = stop.send(true);
                    return;
                }
                reply
            }
            Ok(Frame::NotUtf8) => Some(error_response(
                Value::Null,
                &RpcError::new(codes::PARSE_ERROR, "invalid JSON: the message is not UTF-8"),
            )),
            Ok(Frame::Oversized) => Some(error_response(
                Value::Null,
                &RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("message over the {MAX_MESSAGE}-byte limit"),
                ),
            )),
            Err(_) => return,
        };
        if let Some(r) = reply {
            if framed.send(r.to_string()).await.is_err() {
                return;
            }
        }
    }
}

/// A connection's `sycl/subscribe`: what it asked for and what it was last sent per file.
struct Subscription {
    params: Value,
    changes: watch::Receiver<u64>,
    /// Per file, a hash of the diagnostics last published.
    sent: HashMap<String, u64>,
    /// Whether the first state was sent.
    published: bool,
}

/// A subscriber that does not read for this long is dropped: its writes wait on it alone, but
/// it must not hold the analysis it was sent for ever.
const PUBLISH_TIMEOUT: Duration = Duration::from_secs(10);

fn is_subscription(line: &str) -> bool {
    (line.contains("sycl/subscribe") || line.contains("sycl/unsubscribe"))
        && parse_request(line)
            .is_ok_and(|r| r.method == "sycl/subscribe" || r.method == "sycl/unsubscribe")
}

async fn send(framed: &mut Framed<UnixStream, CappedLines>, v: Value) -> Result<(), ()> {
    match tokio::time::timeout(PUBLISH_TIMEOUT, framed.send(v.to_string())).await {
        Ok(Ok(())) => Ok(()),
        _ => Err(()),
    }
}

/// Sends `sycl/publishDiagnostics` for each file whose findings changed since the last
/// publish (an empty list for a file that has none now). False when the connection is to be
/// dropped (it stopped reading).
async fn publish(
    framed: &mut Framed<UnixStream, CappedLines>,
    state: &Shared,
    heavy: &Arc<Semaphore>,
    sub: &mut Subscription,
) -> bool {
    let snapshot = state
        .read()
        .expect("snapshot lock is never poisoned")
        .clone();
    let params = sub.params.clone();
    let snapshot_root = snapshot.clone();
    let found = {
        let _permit = heavy.clone().acquire_owned().await.expect("never closed");
        tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                super::findings_by_file(&snapshot, &params)
            }))
        })
        .await
    };
    let by_file = match found {
        Ok(Ok(Ok(by_file))) => by_file,
        Ok(Ok(Err(e))) => {
            let note = json!({ "jsonrpc": "2.0", "method": "sycl/subscriptionError", "params": e.to_json() });
            return send(framed, note).await.is_ok();
        }
        _ => return true,
    };
    let mut next: HashMap<String, u64> = HashMap::with_capacity(by_file.files.len());
    let mut sent = 0;
    for (file, (indices, h)) in &by_file.files {
        next.insert(file.clone(), *h);
        if sub.sent.get(file) != Some(h) {
            sent += 1;
            if send(framed, notification(file, &by_file.of(indices)))
                .await
                .is_err()
            {
                return false;
            }
        }
    }
    for file in sub.sent.keys().filter(|f| !next.contains_key(*f)) {
        sent += 1;
        let none: [&crate::diagnostics::Diagnostic; 0] = [];
        if send(framed, notification(file, &none)).await.is_err() {
            return false;
        }
    }
    // A client knows the state is complete (the first answer, each change) when this comes.
    if sent > 0 || !sub.published {
        let done = json!({ "jsonrpc": "2.0", "method": "sycl/publishDone",
            "params": { "root": super::root_of(&snapshot_root), "files": by_file.files.len(), "diagnostics": by_file.total() } });
        if send(framed, done).await.is_err() {
            return false;
        }
    }
    sub.published = true;
    sub.sent = next;
    true
}

fn notification(file: &str, diagnostics: &[&crate::diagnostics::Diagnostic]) -> Value {
    let absolute = crate::workspace::absolute(Path::new(file));
    let uri = url::Url::from_file_path(&absolute)
        .map(|u| u.to_string())
        .unwrap_or_else(|_| absolute.display().to_string());
    json!({ "jsonrpc": "2.0", "method": "sycl/publishDiagnostics",
        "params": { "uri": uri, "path": file, "diagnostics": diagnostics } })
}

/// A request read from one line.
pub struct Request {
    /// `None` for a notification.
    pub id: Option<Value>,
    pub method: String,
    pub params: Value,
}

/// Reads one line as a JSON-RPC 2.0 request, or gives the error response to send (none for a
/// notification with bad parameters: a notification is never answered).
pub fn parse_request(line: &str) -> Result<Request, Option<Value>> {
    let msg: Value = serde_json::from_str(line).map_err(|e| {
        let err = RpcError::new(codes::PARSE_ERROR, format!("invalid JSON: {e}"));
        Some(error_response(Value::Null, &err))
    })?;
    let id = msg.get("id").cloned();
    let Some(obj) = msg.as_object() else {
        let e = RpcError::new(
            codes::INVALID_REQUEST,
            "a request is a JSON object (batches are not supported)",
        );
        return Err(Some(error_response(Value::Null, &e)));
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        let e = RpcError::new(codes::INVALID_REQUEST, "'jsonrpc' must be \"2.0\"");
        return Err(Some(error_response(id.unwrap_or(Value::Null), &e)));
    }
    let Some(method) = obj.get("method").and_then(Value::as_str).map(String::from) else {
        let e = RpcError::new(codes::INVALID_REQUEST, "'method' (a string) is required");
        return Err(Some(error_response(id.unwrap_or(Value::Null), &e)));
    };
    let params = obj.get("params").cloned().unwrap_or(Value::Null);
    if !(params.is_object() || params.is_null()) {
        let e = RpcError::new(codes::INVALID_PARAMS, "'params' must be an object");
        return Err(id.map(|id| error_response(id, &e)));
    }
    Ok(Request { id, method, params })
}

/// Handles one message: the response to send (none for a notification) and whether the daemon
/// must stop.
async fn message(line: &str, state: &Shared, heavy: &Arc<Semaphore>) -> (Option<Value>, bool) {
    let Request { id, method, params } = match parse_request(line) {
        Ok(r) => r,
        Err(response) => return (response, false),
    };
    let reply = |r: Result<Value, RpcError>| {
        id.clone().map(|id| match r {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err(e) => error_response(id, &e),
        })
    };
    if method == "shutdown" {
        return (reply(Ok(Value::Null)), true);
    }
    // Taken before the snapshot, so a queued analysis sees the state of when it runs.
    let _permit = match is_heavy(&method) {
        true => Some(heavy.clone().acquire_owned().await.expect("never closed")),
        false => None,
    };
    let snapshot = state
        .read()
        .expect("snapshot lock is never poisoned")
        .clone();
    let method_name = method.clone();
    let started = std::time::Instant::now();
    let run = move || {
        std::panic::catch_unwind(AssertUnwindSafe(|| handle(&snapshot, &method, &params)))
            .unwrap_or_else(|_| {
                Outcome::from(Err(RpcError::new(
                    codes::INTERNAL_ERROR,
                    "internal error: the handler panicked",
                )))
            })
    };
    let outcome = if is_heavy(&method_name) {
        tokio::task::spawn_blocking(run).await.unwrap_or_else(|_| {
            Outcome::from(Err(RpcError::new(codes::INTERNAL_ERROR, "internal error")))
        })
    } else {
        // Table lookups take microseconds: cheaper than a trip to the blocking pool.
        run()
    };
    match &outcome.result {
        Ok(_) => tracing::debug!(method = %method_name, elapsed = ?started.elapsed(), "request"),
        Err(e) => {
            tracing::debug!(method = %method_name, code = e.code, "request refused: {}", e.message)
        }
    }
    if let Some(next) = outcome.next {
        tracing::info!("device table reloaded: {} targets", next.table.len());
        *state.write().expect("snapshot lock is never poisoned") = Arc::new(next);
    }
    (reply(outcome.result), false)
}
