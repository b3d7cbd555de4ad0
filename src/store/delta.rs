//! Git's delta format: an object written as copies from another (its base) and the
//! bytes the base lacks, the way a pack stores an `OFS_DELTA` entry.
//!
//! The store's versions of one path differ in a few places (a tree of 1 296 folders
//! in which one changed, a document whose status changed), so the encoder looks for
//! what the two share at both ends first, and only indexes the part of the base
//! between those ends to find the rest: a delta of one changed entry in a 38 KB tree
//! costs two comparisons of its bytes.

use std::collections::HashMap;

/// Bytes a match must share to be found through the index of the base.
const BLOCK: usize = 16;

/// The longest copy one instruction makes here (git reads copies up to 16 MiB; its
/// own encoder writes at most 64 KiB).
const MAX_COPY: usize = 0xffff;

/// The most literal bytes one insert instruction carries.
const MAX_INSERT: usize = 0x7f;

/// Appends `n` as git's delta header varint (7 bits a byte, least significant first).
fn varint(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Appends copies of `len` bytes of the base from `offset`.
fn copy(mut offset: usize, mut len: usize, out: &mut Vec<u8>) {
    while len > 0 {
        let n = len.min(MAX_COPY);
        let mut op = 0x80u8;
        let at = out.len();
        out.push(0);
        for i in 0..4 {
            let byte = ((offset >> (8 * i)) & 0xff) as u8;
            if byte != 0 {
                op |= 1 << i;
                out.push(byte);
            }
        }
        for i in 0..2 {
            let byte = ((n >> (8 * i)) & 0xff) as u8;
            if byte != 0 {
                op |= 0x10 << i;
                out.push(byte);
            }
        }
        out[at] = op;
        offset += n;
        len -= n;
    }
}

/// Appends inserts of `bytes`.
fn insert(bytes: &[u8], out: &mut Vec<u8>) {
    for part in bytes.chunks(MAX_INSERT) {
        out.push(part.len() as u8);
        out.extend_from_slice(part);
    }
}

/// How many bytes `a` and `b` begin with alike.
fn shared_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// How many bytes `a` and `b` end with alike.
fn shared_suffix(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// A block's key in the index of the base.
fn key(block: &[u8]) -> u128 {
    let mut bytes = [0u8; BLOCK];
    bytes.copy_from_slice(&block[..BLOCK]);
    u128::from_le_bytes(bytes)
}

/// The delta that makes `target` from `base`, in git's format.
pub(super) fn encode(base: &[u8], target: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    varint(base.len(), &mut out);
    varint(target.len(), &mut out);
    let head = shared_prefix(base, target);
    let tail = shared_suffix(&base[head..], &target[head..]);
    copy(0, head, &mut out);
    let (base_mid, target_mid) = (head..base.len() - tail, &target[head..target.len() - tail]);
    // The base's middle, by aligned blocks.
    let mut index: HashMap<u128, usize> = HashMap::new();
    let mut at = base_mid.start;
    while at + BLOCK <= base_mid.end {
        index.entry(key(&base[at..])).or_insert(at);
        at += BLOCK;
    }
    let mut pending = 0;
    let mut i = 0;
    while i < target_mid.len() {
        let found = (i + BLOCK <= target_mid.len())
            .then(|| index.get(&key(&target_mid[i..])))
            .flatten();
        let Some(&from) = found else {
            i += 1;
            continue;
        };
        let len = shared_prefix(&base[from..base_mid.end], &target_mid[i..]);
        // Stretch the match back over literal bytes the base has before it too.
        let back = shared_suffix(&base[base_mid.start..from], &target_mid[pending..i]);
        insert(&target_mid[pending..i - back], &mut out);
        copy(from - back, len + back, &mut out);
        i += len;
        pending = i;
    }
    insert(&target_mid[pending..], &mut out);
    copy(base.len() - tail, tail, &mut out);
    out
}

/// The object `delta` makes from `base`, or `None` if it is not a valid delta of it
/// (for tests: git and gix apply the deltas the store writes).
#[cfg(test)]
pub(super) fn apply(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    fn varint(bytes: &mut std::slice::Iter<'_, u8>) -> Option<usize> {
        let (mut n, mut shift) = (0usize, 0);
        loop {
            let b = *bytes.next()?;
            n |= usize::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
    }
    let mut bytes = delta.iter();
    if varint(&mut bytes)? != base.len() {
        return None;
    }
    let size = varint(&mut bytes)?;
    let mut out = Vec::with_capacity(size);
    while let Some(&op) = bytes.next() {
        if op & 0x80 != 0 {
            let (mut offset, mut len) = (0usize, 0usize);
            for i in 0..4 {
                if op & (1 << i) != 0 {
                    offset |= usize::from(*bytes.next()?) << (8 * i);
                }
            }
            for i in 0..3 {
                if op & (0x10 << i) != 0 {
                    len |= usize::from(*bytes.next()?) << (8 * i);
                }
            }
            if len == 0 {
                len = 0x10000;
            }
            out.extend_from_slice(base.get(offset..offset.checked_add(len)?)?);
        } else if op != 0 {
            for _ in 0..op {
                out.push(*bytes.next()?);
            }
        } else {
            return None;
        }
    }
    (out.len() == size).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::{apply, encode};

    fn round_trip(base: &[u8], target: &[u8]) -> usize {
        let delta = encode(base, target);
        assert_eq!(apply(base, &delta).as_deref(), Some(target));
        delta.len()
    }

    #[test]
    fn deltas_make_their_target() {
        let base: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 251) as u8).collect();
        round_trip(&base, &base);
        round_trip(&[], &base);
        round_trip(&base, &[]);
        round_trip(b"abc", b"xyz");
        let mut moved = base[100_000..].to_vec();
        moved.extend_from_slice(&base[..100_000]);
        assert!(round_trip(&base, &moved) < 200);
        let mut one = base.clone();
        one[77_777] ^= 0xff;
        one.splice(150_000..150_000, *b"inserted");
        assert!(
            round_trip(&base, &one) < 100,
            "two small edits, a small delta"
        );
    }
}
