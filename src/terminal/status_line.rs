//! A live status line at the bottom of the terminal, below libtest's output.
//!
//! libtest writes its per-case lines to stdout whenever a case ends; a line
//! redrawn in place with `\r` on the same terminal would be cut into by
//! them. Instead (as apt does for its progress bar) the terminal's scroll
//! region is set to every row but the last: libtest's lines scroll above,
//! and the status is drawn on the last row with the cursor saved and
//! restored around it, so a half-written libtest line goes on where it was.
//! Closing resets the region and clears the row. Ctrl-C resets it from the
//! signal handler and stops the drawing, because the harness's second
//! Ctrl-C exits at once, before anything could clean up.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once the region was reset from a signal handler: drawing stops.
static RESET_BY_SIGNAL: AtomicBool = AtomicBool::new(false);

/// Scroll region back to the whole screen, with the cursor kept.
const RESET: &[u8] = b"\x1b7\x1b[r\x1b8";

pub struct StatusLine {
    /// Terminal rows when the region was set; None once closed.
    rows: Mutex<Option<u16>>,
}

impl StatusLine {
    /// Whether stderr is a terminal that can keep a live line: not a
    /// dumb one, and tall enough to spare a row.
    pub fn available() -> bool {
        std::io::IsTerminal::is_terminal(&std::io::stderr())
            && !std::env::var("TERM").is_ok_and(|t| t == "dumb")
            && size().is_some_and(|(rows, _)| rows >= 5)
    }

    /// Sets the region on stderr's terminal; None when it is not
    /// [`available`](StatusLine::available).
    pub fn open() -> Option<StatusLine> {
        if !StatusLine::available() {
            return None;
        }
        let (rows, _) = size()?;
        // SIGINT/SIGTERM: the harness's second signal exits without
        // unwinding (and its handler runs before this one), so the region
        // is given back at the first.
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: the action only stores to an atomic and calls write(2)
            // on a static buffer, both async-signal-safe.
            let _ = unsafe {
                signal_hook::low_level::register(signal, || {
                    if !RESET_BY_SIGNAL.swap(true, Ordering::SeqCst) {
                        let _ = rustix::io::write(rustix::stdio::stderr(), RESET);
                    }
                })
            };
        }
        // A new line first, so the row given up is an empty one; then the
        // region (which homes the cursor, hence the save and restore), and
        // back up into it.
        let set = format!("\n\x1b7\x1b[1;{}r\x1b8\x1b[1A", rows - 1);
        write(set.as_bytes());
        Some(StatusLine {
            rows: Mutex::new(Some(rows)),
        })
    }

    /// Draws `text`, cut to the terminal's width, on the bottom row.
    pub fn draw(&self, text: &str) {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        let Some(set_for) = *rows else { return };
        if RESET_BY_SIGNAL.load(Ordering::SeqCst) {
            *rows = None;
            return;
        }
        let Some((now, cols)) = size() else { return };
        let mut out = String::new();
        if now != set_for {
            // Resized: the region follows.
            out.push_str(&format!("\x1b7\x1b[1;{}r\x1b8", now.saturating_sub(1)));
            *rows = Some(now);
        }
        out.push_str(&format!(
            "\x1b7\x1b[{now};1H\x1b[2K{}\x1b8",
            fit(text, usize::from(cols).saturating_sub(1))
        ));
        write(out.as_bytes());
    }

    /// Resets the region and clears the status row; later draws do nothing.
    pub fn close(&self) {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        match rows.take() {
            Some(r) if !RESET_BY_SIGNAL.load(Ordering::SeqCst) => {
                write(format!("\x1b7\x1b[r\x1b[{r};1H\x1b[2K\x1b8").as_bytes());
            }
            _ => {}
        }
    }
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        self.close();
    }
}

/// (rows, columns) of stderr's terminal.
fn size() -> Option<(u16, u16)> {
    let ws = rustix::termios::tcgetwinsize(rustix::stdio::stderr()).ok()?;
    (ws.ws_row > 0 && ws.ws_col > 0).then_some((ws.ws_row, ws.ws_col))
}

/// One write(2), so the sequence reaches the terminal whole.
fn write(bytes: &[u8]) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(bytes);
    let _ = err.flush();
}

/// `text` cut to `width` display columns (a wide character counts two).
fn fit(text: &str, width: usize) -> String {
    let mut used = 0;
    let mut out = String::new();
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width {
            out.push('…');
            break;
        }
        used += w;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_counts_display_columns() {
        assert_eq!(fit("progress: 3/9", 40), "progress: 3/9");
        assert_eq!(fit("abcdef", 3), "abc…");
        assert_eq!(fit("問題問題", 5), "問題…");
    }
}
