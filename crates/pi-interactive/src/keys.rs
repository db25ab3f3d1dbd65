//! The terminal's keys, read on a thread of their own and handed to the loop. Not crossterm's
//! `EventStream`: its reader waits for input holding crossterm's reader lock, so a
//! cursor-position query (ratatui's inline viewport asks on every resize) waited for the next
//! key. Here each wait is short, so a query gets the lock within one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::event::{self, Event};
use tokio::sync::mpsc;

/// How long one wait for a key holds crossterm's reader.
const WAIT: Duration = Duration::from_millis(30);

/// Keys, pastes and resizes as they come; the thread stops when this is dropped.
pub(crate) struct KeyReader {
    events: mpsc::UnboundedReceiver<std::io::Result<Event>>,
    stop: Arc<AtomicBool>,
    /// Asks the thread to stop reading (another program has the terminal).
    paused: Arc<AtomicBool>,
    /// The thread's answer: it is not reading.
    idle: Arc<AtomicBool>,
}

impl KeyReader {
    /// Starts reading.
    pub(crate) fn start() -> std::io::Result<Self> {
        let (sender, events) = mpsc::unbounded_channel();
        let stop = Arc::new(AtomicBool::new(false));
        let paused = Arc::new(AtomicBool::new(false));
        let idle = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let (pause, quiet) = (Arc::clone(&paused), Arc::clone(&idle));
        std::thread::Builder::new()
            .name("pi-keys".to_owned())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    if pause.load(Ordering::SeqCst) {
                        quiet.store(true, Ordering::SeqCst);
                        std::thread::sleep(WAIT);
                        continue;
                    }
                    let event = match event::poll(WAIT) {
                        Ok(false) => continue,
                        Ok(true) => event::read(),
                        Err(error) => Err(error),
                    };
                    let failed = event.is_err();
                    if sender.send(event).is_err() || failed {
                        break;
                    }
                }
            })?;
        Ok(Self {
            events,
            stop,
            paused,
            idle,
        })
    }

    /// Stops reading until [`KeyReader::resume`], once the read under way is done (another
    /// program is about to read the terminal).
    pub(crate) async fn pause(&self) {
        self.idle.store(false, Ordering::SeqCst);
        self.paused.store(true, Ordering::SeqCst);
        for _ in 0..100 {
            if self.idle.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Reads again.
    pub(crate) fn resume(&self) {
        self.paused.store(false, Ordering::SeqCst);
    }

    /// The next event; `None` once the reader stopped.
    pub(crate) async fn next(&mut self) -> Option<std::io::Result<Event>> {
        self.events.recv().await
    }
}

impl Drop for KeyReader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
