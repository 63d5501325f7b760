//! Log events to the editor: a `tracing` layer that hands each event to the running language
//! server, which sends it as `window/logMessage` (the editor's output channel) when `$/setTrace`
//! (or `initialize`'s `trace`) lets its level through: `off` errors and warnings, `messages`
//! info too, `verbose` everything the `SYCL_ANALYZER_LOG` filter passes.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

type Sink = Box<dyn Fn(Level, String) + Send + Sync>;

/// The running server's sink; none outside `lsp` mode.
static SINK: Mutex<Option<Sink>> = Mutex::new(None);

thread_local! {
    /// Sending a message can itself log (the LSP library uses `tracing`): not forwarded.
    static SENDING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The layer `crate::logging` installs; it does nothing until a server sets its sink.
pub struct Forward;

impl<S: Subscriber> Layer<S> for Forward {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        if event.metadata().target().starts_with("async_lsp") || SENDING.with(|s| s.get()) {
            return;
        }
        let Ok(sink) = SINK.lock() else { return };
        let Some(sink) = sink.as_ref() else { return };
        let mut text = Text(String::new());
        event.record(&mut text);
        SENDING.with(|s| s.set(true));
        sink(*event.metadata().level(), text.0);
        SENDING.with(|s| s.set(false));
    }
}

struct Text(String);

impl Visit for Text {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0.insert_str(0, &format!("{value:?}"));
        } else {
            self.0.push_str(&format!(" {}={value:?}", field.name()));
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.insert_str(0, value);
        } else {
            self.0.push_str(&format!(" {}={value}", field.name()));
        }
    }
}

/// The most verbose level sent, by `$/setTrace`'s value: 1 warnings, 2 info, 3 everything.
pub(super) fn threshold(trace: Option<&str>) -> u8 {
    match trace {
        Some("verbose") => 3,
        Some("messages") => 2,
        _ => 1,
    }
}

/// Starts sending events to the editor, at `threshold`'s level.
pub(super) fn connect(client: async_lsp::ClientSocket, threshold: Arc<AtomicU8>) {
    use async_lsp::lsp_types::{notification, LogMessageParams, MessageType};
    let sink: Sink = Box::new(move |level, message| {
        let (rank, typ) = match level {
            Level::ERROR => (0, MessageType::ERROR),
            Level::WARN => (1, MessageType::WARNING),
            Level::INFO => (2, MessageType::INFO),
            _ => (3, MessageType::LOG),
        };
        if rank <= threshold.load(Ordering::Relaxed) {
            let _ = client.notify::<notification::LogMessage>(LogMessageParams { typ, message });
        }
    });
    if let Ok(mut s) = SINK.lock() {
        *s = Some(sink);
    }
}

/// Stops sending (the server exits).
pub(super) fn disconnect() {
    if let Ok(mut s) = SINK.lock() {
        *s = None;
    }
}
