//! Append-only JSON-lines journal of finished cases: one line per case,
//! written as soon as the case ends, so a killed run keeps every finished
//! case and `PROMPTEVAL_RESUME` can skip them. A background thread syncs the
//! file to disk after appends, at most every 50 ms (the appends of that
//! time share one sync), so a machine that loses power loses at most the
//! last 50 ms' cases, which a resume asks again. A killed process loses
//! nothing: what it appended is in the kernel's page cache.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use serde::Deserialize;

use crate::case::{CaseId, CaseRecord, SnapshotState};

pub const FILE_NAME: &str = "journal.jsonl";

pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
    torn: Option<TornTail>,
    durability: Arc<Durability>,
    syncer: Option<JoinHandle<()>>,
}

/// What the syncer thread and the appenders share. A sync per append on
/// the case's own thread held each execution slot 0.3 ms per case here
/// (fdatasync on ext4), in series with the next case.
#[derive(Default)]
struct Durability {
    state: Mutex<SyncState>,
    wake: Condvar,
}

#[derive(Default)]
struct SyncState {
    appended: u64,
    synced: u64,
    closing: bool,
    /// The first failed sync, returned by the next append.
    failed: Option<std::io::Error>,
}

/// The shortest time between two syncs while cases are being appended:
/// what a machine that loses power can lose at most. Syncing after every
/// append made one ext4 journal commit per case (995 for 1,000 cached
/// cases, 1.5 s): the disk busy throughout and the report's file
/// creations waiting on the commits (0.07 s on a quiet disk, up to 0.6 s).
const GROUP_COMMIT: std::time::Duration = std::time::Duration::from_millis(50);

impl Durability {
    /// Syncs what was appended since the last sync, at most once per
    /// [`GROUP_COMMIT`], until the journal closes (then at once, if needed).
    fn run(&self, file: File) {
        let lock = || self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut state = lock();
        let mut last_sync: Option<std::time::Instant> = None;
        loop {
            while state.appended == state.synced && !state.closing {
                state = self.wake.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            if state.appended == state.synced {
                return;
            }
            if let Some(remaining) = last_sync.and_then(|at| GROUP_COMMIT.checked_sub(at.elapsed()))
            {
                state = self
                    .wake
                    .wait_timeout_while(state, remaining, |s| !s.closing)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            last_sync = Some(std::time::Instant::now());
            let target = state.appended;
            drop(state);
            let result = file.sync_data();
            state = lock();
            state.synced = target;
            if let Err(e) = result {
                state.failed.get_or_insert(e);
            }
        }
    }
}

/// What opening found after the last complete line: the trace of a write
/// that a kill interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TornTail {
    /// A partial record, cut off the file (this many bytes).
    Cut(u64),
    /// A whole record that only lacked its newline: kept, newline added.
    Completed,
}

impl Journal {
    /// Opens (or creates) the journal of a run folder for appending.
    ///
    /// A kill in the middle of an append leaves a torn last line. It is cut
    /// before anything is appended: glued to the next record, it would make
    /// that record unreadable too, and its case would be asked again on the
    /// next resume. [`Journal::torn`] says what was found.
    pub fn open(run_dir: &Path) -> std::io::Result<Journal> {
        let path = run_dir.join(FILE_NAME);
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&path)?;
        let torn = repair_tail(&mut file)?;
        let durability = Arc::new(Durability::default());
        let syncer = {
            let (durability, file) = (durability.clone(), file.try_clone()?);
            std::thread::Builder::new()
                .name("journal-sync".into())
                .spawn(move || durability.run(file))?
        };
        Ok(Journal {
            path,
            file: Mutex::new(file),
            torn,
            durability,
            syncer: Some(syncer),
        })
    }

    /// What [`Journal::open`] repaired, if anything.
    pub fn torn(&self) -> Option<TornTail> {
        self.torn
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record as a single write; the syncer thread syncs it to
    /// disk. A sync that failed since the last append is returned here.
    pub fn append(&self, record: &CaseRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(std::io::Error::other)?;
        line.push(b'\n');
        // A poisoned lock only means another case panicked mid-append; the
        // file itself is still usable.
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        file.write_all(&line)?;
        drop(file);
        let mut state = self
            .durability
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(e) = state.failed.take() {
            return Err(e);
        }
        state.appended += 1;
        self.durability.wake.notify_one();
        Ok(())
    }
}

impl Drop for Journal {
    /// Waits for the last sync.
    fn drop(&mut self) {
        if let Ok(mut state) = self.durability.state.lock() {
            state.closing = true;
            self.durability.wake.notify_one();
        }
        if let Some(syncer) = self.syncer.take() {
            let _ = syncer.join();
        }
        let failed = self
            .durability
            .state
            .lock()
            .ok()
            .and_then(|mut s| s.failed.take());
        if let Some(e) = failed {
            tracing::warn!(
                "{}: the last records may not be on disk: {e}",
                self.path.display()
            );
        }
    }
}

/// Cuts a partial last line, or ends a whole record that lacks its newline.
fn repair_tail(file: &mut File) -> std::io::Result<Option<TornTail>> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    let start = last_line_start(file, len)?;
    if start == len {
        return Ok(None);
    }
    let mut tail = Vec::with_capacity((len - start) as usize);
    file.seek(SeekFrom::Start(start))?;
    file.read_to_end(&mut tail)?;
    let repair = if serde_json::from_slice::<CaseRecord>(&tail).is_ok() {
        file.write_all(b"\n")?;
        TornTail::Completed
    } else {
        file.set_len(start)?;
        TornTail::Cut(len - start)
    };
    file.sync_data()?;
    Ok(Some(repair))
}

/// Offset just past the file's last newline (0 when it has none).
fn last_line_start(file: &mut File, len: u64) -> std::io::Result<u64> {
    use std::io::{Read, Seek, SeekFrom};
    const CHUNK: u64 = 64 * 1024;
    let mut end = len;
    let mut buf = vec![0u8; CHUNK as usize];
    while end > 0 {
        let from = end.saturating_sub(CHUNK);
        let chunk = &mut buf[..(end - from) as usize];
        file.seek(SeekFrom::Start(from))?;
        file.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            return Ok(from + i as u64 + 1);
        }
        end = from;
    }
    Ok(0)
}

/// What a journal holds. A torn last line (the process was killed while
/// writing) is skipped and counted, never an error.
#[derive(Debug, Default)]
pub struct Contents {
    pub records: Vec<CaseRecord>,
    pub damaged_lines: usize,
}

/// Where one case's latest record sits in the journal.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub case: CaseId,
    pub snapshot: Option<SnapshotState>,
    pub offset: u64,
    pub len: usize,
}

/// Where each case's latest record is, and each prompt's template.
#[derive(Debug, Default)]
pub struct Index {
    /// In first-seen order.
    pub entries: Vec<Located>,
    /// Prompt name -> its template, once per prompt (in first-seen order).
    pub templates: indexmap::IndexMap<String, String>,
}

/// The latest record of each case, by position, in first-seen order: what
/// a report needs to read the journal one record at a time. Unreadable
/// lines (a torn write) are skipped.
pub fn index(run_dir: &Path) -> std::io::Result<Index> {
    #[derive(Deserialize)]
    struct Head {
        case: CaseId,
        template: String,
        snapshot: Option<SnapshotState>,
    }
    let file = match File::open(run_dir.join(FILE_NAME)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Index::default()),
        Err(e) => return Err(e),
    };
    let mut reader = BufReader::new(file);
    // Each case once, as the key: a second copy in the value doubled the
    // index of a 100,000-case run.
    let mut latest: indexmap::IndexMap<CaseId, (Option<SnapshotState>, u64, usize)> =
        indexmap::IndexMap::new();
    let mut templates = indexmap::IndexMap::new();
    let mut line = Vec::new();
    let mut offset = 0u64;
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        if let Ok(head) = serde_json::from_slice::<Head>(&line) {
            if !templates.contains_key(&*head.case.prompt) {
                templates.insert(head.case.prompt.to_string(), head.template);
            }
            // A later record of a case moves it to the end (first-seen
            // order counts its latest record).
            latest.shift_remove(&head.case);
            latest.insert(head.case, (head.snapshot, offset, n));
        }
        offset += n as u64;
    }
    Ok(Index {
        entries: latest
            .into_iter()
            .map(|(case, (snapshot, offset, len))| Located {
                case,
                snapshot,
                offset,
                len,
            })
            .collect(),
        templates,
    })
}

/// Reads records by their position in the journal.
pub struct Reader {
    file: File,
}

impl Reader {
    pub fn open(run_dir: &Path) -> std::io::Result<Reader> {
        Ok(Reader {
            file: File::open(run_dir.join(FILE_NAME))?,
        })
    }

    pub fn record_at(&self, offset: u64, len: usize) -> std::io::Result<CaseRecord> {
        use std::os::unix::fs::FileExt;
        let mut bytes = vec![0; len];
        self.file.read_exact_at(&mut bytes, offset)?;
        serde_json::from_slice(&bytes).map_err(std::io::Error::other)
    }
}

/// Calls `f` with every readable record, in file order, one at a time;
/// returns how many lines were unreadable (a torn write). A case may appear
/// more than once (a resumed run): the later record is the one that counts.
pub fn for_each(run_dir: &Path, mut f: impl FnMut(CaseRecord)) -> std::io::Result<usize> {
    let file = match File::open(run_dir.join(FILE_NAME)) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut damaged = 0;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(damaged);
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<CaseRecord>(&line) {
            Ok(record) => f(record),
            Err(_) => damaged += 1,
        }
    }
}

/// Every record at once, the later record of a case replacing the earlier.
/// For small journals and tests; runs use [`for_each`] and [`index`].
pub fn read(run_dir: &Path) -> std::io::Result<Contents> {
    let mut latest: indexmap::IndexMap<CaseId, CaseRecord> = indexmap::IndexMap::new();
    let damaged_lines = for_each(run_dir, |r| {
        latest.shift_remove(&r.case);
        latest.insert(r.case.clone(), r);
    })?;
    Ok(Contents {
        records: latest.into_values().collect(),
        damaged_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::fixtures::record;

    #[test]
    fn appended_records_read_back_and_torn_tail_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::open(dir.path()).unwrap();
        j.append(&record(1)).unwrap();
        j.append(&record(2)).unwrap();
        drop(j);
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.path().join(FILE_NAME))
            .unwrap();
        f.write_all(b"{\"case\": {\"prompt\": \"p\", \"quest")
            .unwrap();
        let c = read(dir.path()).unwrap();
        assert_eq!(c.records.len(), 2);
        assert_eq!(c.records[1].case.question, 2);
        assert_eq!(c.damaged_lines, 1);
    }

    #[test]
    fn a_record_appended_after_a_torn_line_survives() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::open(dir.path()).unwrap();
        j.append(&record(1)).unwrap();
        drop(j);
        let mut f = OpenOptions::new()
            .append(true)
            .open(dir.path().join(FILE_NAME))
            .unwrap();
        f.write_all(b"{\"case\": {\"prom").unwrap();
        drop(f);
        let j = Journal::open(dir.path()).unwrap();
        assert_eq!(j.torn(), Some(TornTail::Cut(15)));
        j.append(&record(2)).unwrap();
        let c = read(dir.path()).unwrap();
        let questions: Vec<usize> = c.records.iter().map(|r| r.case.question).collect();
        assert_eq!(questions, [1, 2]);
        assert_eq!(c.damaged_lines, 0, "the fragment is cut, not kept");
    }

    #[test]
    fn a_whole_record_without_its_newline_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut line = serde_json::to_vec(&record(1)).unwrap();
        std::fs::write(dir.path().join(FILE_NAME), &line).unwrap();
        let j = Journal::open(dir.path()).unwrap();
        assert_eq!(j.torn(), Some(TornTail::Completed));
        j.append(&record(2)).unwrap();
        let c = read(dir.path()).unwrap();
        assert_eq!(c.records.len(), 2);
        line.push(b'\n');
        let on_disk = std::fs::read(dir.path().join(FILE_NAME)).unwrap();
        assert!(on_disk.starts_with(&line));
    }

    #[test]
    fn a_journal_that_is_only_a_fragment_becomes_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), b"{\"ca").unwrap();
        let j = Journal::open(dir.path()).unwrap();
        assert_eq!(j.torn(), Some(TornTail::Cut(4)));
        assert_eq!(
            std::fs::metadata(dir.path().join(FILE_NAME)).unwrap().len(),
            0
        );
        let clean = Journal::open(dir.path()).unwrap();
        assert_eq!(clean.torn(), None);
    }

    #[test]
    fn missing_journal_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().records.is_empty());
    }
}
