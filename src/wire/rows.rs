//! Summaries written as JSON straight from the index's rows, for the document that
//! prints thousands of beads: `blocked` prints every blocked bead, as bd does (49 500
//! of them, 10 MB, in the benchmark's store of 100 000). No wire value is built per
//! bead and nothing is allocated per bead; a string with nothing to escape is copied
//! whole. The bytes are those serde_json writes for [`Summary`] with the fields after
//! it: the tests below hold the two together.

use std::io::{self, Write};
use std::sync::mpsc;

use super::rfc3339;
use crate::model::{DepKind, TimeText, Timestamp};
use crate::ops::{BeadRow, Blocked};

/// How many beads go into one piece of `blocked`'s document (about 50 KB), the unit
/// handed to the writer and, for a long document, to the threads that write it.
const PIECE: usize = 256;

/// How many blocked beads it takes for `blocked`'s document to be written by more
/// than one thread: below that, starting one costs more than it saves.
const SHARED_FROM: usize = 16 * PIECE;

/// At most how many threads write one document.
const MOST_THREADS: usize = 4;

/// Writes `blocked`'s document: a bare array of its beads, each a [`Summary`]
/// followed by `blocked_by_count` and `blocked_by`.
///
/// A long document (tens of thousands of beads at 100 000 in the store) is written in
/// pieces by as many threads as there are processors (up to [`MOST_THREADS`]): each
/// helper writes every so-many-th piece into a buffer of its own and hands it over;
/// this thread writes the others and passes every piece to `w` in order. No lock is
/// held; a failed write stops the helpers at their next piece.
///
/// [`Summary`]: super::Summary
pub fn write_blocked(w: &mut dyn Write, blocked: &Blocked) -> io::Result<()> {
    let lanes = match blocked.beads().len() >= SHARED_FROM {
        true => std::thread::available_parallelism().map_or(1, |n| n.get().min(MOST_THREADS)),
        false => 1,
    };
    write_in_lanes(w, blocked, lanes)
}

/// [`write_blocked`] by `lanes` threads (this one and `lanes - 1` helpers).
fn write_in_lanes(w: &mut dyn Write, blocked: &Blocked, lanes: usize) -> io::Result<()> {
    let dependents = blocked.dependents();
    let count = blocked.beads().len();
    let pieces = count.div_ceil(PIECE);
    let write_piece = |out: &mut Vec<u8>, p: usize| {
        out.clear();
        out.push(if p == 0 { b'[' } else { b',' });
        let beads = blocked.beads_in(p * PIECE..(p + 1) * PIECE);
        for (k, (bead, by)) in beads.enumerate() {
            if k > 0 {
                out.push(b',');
            }
            summary_fields(out, &bead, dependents.count(&bead));
            out.extend_from_slice(b",\"blocked_by_count\":");
            number(out, by.len());
            out.extend_from_slice(b",\"blocked_by\":");
            strings(out, by.iter().copied());
            out.push(b'}');
        }
        if p + 1 == pieces {
            out.push(b']');
        }
    };
    if pieces == 0 {
        return w.write_all(b"[]");
    }
    let lanes = lanes.clamp(1, pieces);
    std::thread::scope(|scope| {
        // For each helper: the pieces it wrote, and its buffers handed back.
        let helpers: Vec<_> = (1..lanes)
            .map(|lane| {
                let (written, take) = mpsc::sync_channel::<Vec<u8>>(2);
                let (give_back, returned) = mpsc::channel::<Vec<u8>>();
                scope.spawn(move || {
                    for p in (lane..pieces).step_by(lanes) {
                        let mut out = returned.try_recv().unwrap_or_default();
                        write_piece(&mut out, p);
                        if written.send(out).is_err() {
                            return;
                        }
                    }
                });
                (take, give_back)
            })
            .collect();
        let mut own = Vec::with_capacity(PIECE * 256);
        for p in 0..pieces {
            match p % lanes {
                0 => {
                    write_piece(&mut own, p);
                    w.write_all(&own)?;
                }
                lane => {
                    let (take, give_back) = &helpers[lane - 1];
                    let out = take.recv().map_err(io::Error::other)?;
                    w.write_all(&out)?;
                    // A helper past its last piece has no use for it.
                    let _ = give_back.send(out);
                }
            }
        }
        Ok(())
    })
}

/// A [`Summary`](super::Summary) of `s`, which `dependents` beads depend on, without
/// its closing brace (so that fields may follow).
fn summary_fields(out: &mut Vec<u8>, s: &BeadRow<'_>, dependents: usize) {
    out.extend_from_slice(b"{\"id\":");
    // The id, quoted, is copied from here for each dependency.
    let id = out.len()..{
        string(out, s.id());
        out.len()
    };
    out.extend_from_slice(b",\"title\":");
    string(out, s.title());
    out.extend_from_slice(b",\"status\":");
    string(out, s.status().as_str());
    out.extend_from_slice(b",\"priority\":");
    number(out, usize::from(s.priority()));
    out.extend_from_slice(b",\"issue_type\":");
    string(out, s.kind().as_str());
    if let Some(a) = s.assignee() {
        out.extend_from_slice(b",\"assignee\":");
        string(out, a);
    }
    out.extend_from_slice(b",\"labels\":");
    strings(out, s.labels());
    out.extend_from_slice(b",\"dependencies\":[");
    let (mut count, mut parent) = (0, None);
    for d in s.dependencies() {
        if count > 0 {
            out.push(b',');
        }
        count += 1;
        let on = d.id();
        if d.kind == DepKind::ParentChild && parent.is_none() {
            parent = Some(on);
        }
        out.extend_from_slice(b"{\"issue_id\":");
        out.extend_from_within(id.clone());
        out.extend_from_slice(b",\"depends_on_id\":");
        string(out, on);
        out.extend_from_slice(b",\"type\":");
        string(out, d.kind.as_str());
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"dependency_count\":");
    number(out, count);
    out.extend_from_slice(b",\"dependent_count\":");
    number(out, dependents);
    if let Some(p) = parent {
        out.extend_from_slice(b",\"parent\":");
        string(out, p);
    }
    out.extend_from_slice(b",\"created_at\":");
    time(out, s.created_us());
    out.extend_from_slice(b",\"updated_at\":");
    time(out, s.updated_us());
}

/// A JSON array of strings.
fn strings<'a>(out: &mut Vec<u8>, all: impl Iterator<Item = &'a str>) {
    out.push(b'[');
    for (k, s) in all.enumerate() {
        if k > 0 {
            out.push(b',');
        }
        string(out, s);
    }
    out.push(b']');
}

/// A number in decimal.
fn number(out: &mut Vec<u8>, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// The time `micros` microseconds after the Unix epoch as [`rfc3339`] writes it
/// (`2026-01-01T00:00:00.123Z`: the fraction of a second in 3, 6 or 9 digits, as many
/// as it needs), as a JSON string; a time chrono cannot hold as the epoch, as a row's
/// own times read.
fn time(out: &mut Vec<u8>, micros: i64) {
    match TimeText::of_micros(micros) {
        Some(text) => {
            out.push(b'"');
            out.extend_from_slice(text.as_bytes());
            out.push(b'"');
        }
        // Years of other than four digits: as chrono writes them.
        None => string(
            out,
            &rfc3339(Timestamp::from_timestamp_micros(micros).unwrap_or_default()),
        ),
    }
}

/// Whether a byte must be escaped in a JSON string (serde_json escapes these alone).
fn escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether none of the eight bytes of `w` must be escaped: one test for the word (a
/// byte below 0x20, or one equal to a quote or a backslash, sets its top bit).
fn plain_word(w: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const TOPS: u64 = u64::from_ne_bytes([0x80; 8]);
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & TOPS;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & TOPS;
    below(w, 0x20) | zero(w ^ (ONES * 0x22)) | zero(w ^ (ONES * 0x5c)) == 0
}

/// Appends `s` as a JSON string, quoted and escaped as serde_json escapes it; one test
/// a word for text with nothing to escape.
pub fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    string_body(out, s);
    out.push(b'"');
}

/// Appends `s` escaped as serde_json escapes it inside a JSON string, without the
/// quotes. Each byte is escaped on its own, so the body of a concatenation is the
/// concatenation of the bodies.
pub fn string_body(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    let plain = words
        .map(|w| u64::from_ne_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
        .all(plain_word)
        && !tail.iter().any(|&b| escaped(b));
    if plain {
        out.extend_from_slice(bytes);
    } else {
        let mut done = 0;
        for (k, &b) in bytes.iter().enumerate().filter(|(_, b)| escaped(**b)) {
            out.extend_from_slice(&bytes[done..k]);
            escape(out, b);
            done = k + 1;
        }
        out.extend_from_slice(&bytes[done..]);
    }
}

/// The escape of byte `b`, as serde_json writes it.
fn escape(out: &mut Vec<u8>, b: u8) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        0x08 => b'b',
        0x0c => b'f',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 0xf)]);
            return;
        }
    };
    out.push(b'\\');
    out.push(short);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte escaped, in every place of a word, as serde_json escapes it.
    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let mut texts: Vec<String> = vec![
            String::new(),
            "plain".into(),
            "a title of more than eight bytes".into(),
            "ünïcödé and → arrows, \u{7f} and \u{2028}".into(),
        ];
        for b in (0u8..0x80).filter(|&b| escaped(b) || b == 0x7f || b == b' ') {
            for at in 0..10 {
                let mut s: String = "abcdefghij".into();
                s.insert(at, char::from(b));
                texts.push(s);
            }
        }
        for s in &texts {
            let mut out = Vec::new();
            string(&mut out, s);
            let want = serde_json::to_string(s).expect("json");
            assert_eq!(String::from_utf8_lossy(&out), want, "{s:?}");
        }
    }

    /// Times with no fraction and with fractions of each length, and years chrono
    /// writes otherwise, as [`rfc3339`] writes them.
    #[test]
    fn times_are_written_as_rfc3339_writes_them() {
        let micros = [
            0,
            1_767_225_600_000_000,
            1_767_225_600_123_000,
            1_767_225_600_123_456,
            1_767_225_600_000_001,
            -62_167_219_200_000_000,
            -62_167_219_200_000_001,
            253_402_300_799_999_999,
            253_402_300_800_000_000,
        ];
        // And a sweep from the year -248 to 10 208 in uneven steps.
        let sweep = (0..4_000i64).map(|k| -70_000_000_000_000_000 + k * 82_500_000_123_457);
        for us in micros.into_iter().chain(sweep).chain([i64::MIN, i64::MAX]) {
            let t = Timestamp::from_timestamp_micros(us).unwrap_or_default();
            let mut out = Vec::new();
            time(&mut out, us);
            let want = serde_json::to_string(&rfc3339(t)).expect("json");
            assert_eq!(String::from_utf8_lossy(&out), want, "{us}");
        }
    }

    /// `blocked`'s document, written from the rows, is byte for byte what serde_json
    /// writes for each bead's [`Summary`](super::super::Summary) with `blocked_by_count`
    /// and `blocked_by` after it, for beads with every optional field and awkward text.
    #[test]
    fn blocked_is_written_as_serde_json_writes_its_summaries() {
        use crate::model::{Bead, BeadId, BeadType, Dependency, Status};
        let (_dir, store) = crate::ops::Store::temp_for_tests();
        let id = |n: u32| BeadId::parse(&format!("bd-t{n:03}")).expect("id");
        store.commit_for_tests(|tx| {
            // Enough for several pieces, so that every thread writes some.
            for n in 0..(3 * PIECE as u32 + 40) {
                let at = Timestamp::from_timestamp_micros(
                    1_790_000_000_000_000 + i64::from(n) * 1_234_567,
                )
                .expect("time");
                let mut b = Bead::new(id(n), format!("t\"i\\t{n}\n\u{1}é"), "tester", at);
                b.updated_at = Timestamp::from_timestamp_micros(
                    1_790_000_000_000_000 + i64::from(n) * 1_000_000,
                )
                .expect("time");
                b.priority = (n % 5) as u8;
                b.kind = [BeadType::Task, BeadType::Bug, BeadType::Epic][n as usize % 3];
                b.status = match n % 7 {
                    6 => Status::Closed,
                    k => [Status::Open, Status::InProgress][k as usize % 2],
                };
                if n % 2 == 0 {
                    b.assignee = Some(format!("al\"ice{n}"));
                }
                b.labels = (0..n % 3).map(|k| format!("l{k}\t")).collect();
                if n > 0 {
                    b.dependencies.push(Dependency {
                        id: id(n - 1),
                        kind: crate::model::DepKind::Blocks,
                    });
                }
                if n > 3 && n % 4 == 0 {
                    b.dependencies.push(Dependency {
                        id: id(n - 4),
                        kind: crate::model::DepKind::ParentChild,
                    });
                }
                b.dependencies.sort();
                tx.put_bead(&b).expect("put");
            }
        });
        let blocked = crate::ops::blocked(&store, None).expect("blocked");
        assert!(blocked.beads().len() > 2 * PIECE, "enough beads blocked");
        let dependents = blocked.dependents();
        let items: Vec<String> = blocked
            .beads()
            .map(|(bead, by)| {
                let summary = serde_json::to_string(&super::super::Summary::new(bead, &dependents))
                    .expect("json");
                let by = serde_json::to_string(&by).expect("json");
                let n = serde_json::from_str::<Vec<String>>(&by).expect("ids").len();
                format!(
                    "{},\"blocked_by_count\":{n},\"blocked_by\":{by}}}",
                    &summary[..summary.len() - 1]
                )
            })
            .collect();
        let want = format!("[{}]", items.join(","));
        for lanes in 1..=3 {
            let mut out = Vec::new();
            write_in_lanes(&mut out, &blocked, lanes).expect("write");
            assert_eq!(String::from_utf8_lossy(&out), want, "{lanes} threads");
        }
    }
}
