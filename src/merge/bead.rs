//! The typed, per-field three-way merge of a bead.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::text::merge_text;
use super::{Merged, pick};
use crate::model::{Bead, Comment, Conflict, Status, Timestamp};

/// Merges two versions of one bead against their common ancestor (`None` when
/// both sides created it independently).
///
/// A field changed on one side takes that side. Labels and dependencies merge as
/// sets (adds and removes from both sides), comments as a union by comment id,
/// description and notes line by line. A field changed differently on both sides
/// takes the winner's value — the version with the later `updated_at`, then the
/// greater `updated_by` — and the loser's value is appended to `conflicts`. The
/// status and the closing and deletion fields it implies merge as one group, so a
/// merged bead never mixes one side's status with the other side's close reason.
///
/// The result does not depend on which side is called `a`: merging A into B and
/// B into A give equal beads.
pub fn merge_bead(base: Option<&Bead>, a: &Bead, b: &Bead) -> Merged<Bead> {
    if a == b {
        return Merged::clean(a.clone());
    }
    if let Some(base) = base {
        if base == a {
            return Merged::clean(b.clone());
        }
        if base == b {
            return Merged::clean(a.clone());
        }
    }
    let (w, l) = pick(a, b, |x| (x.updated_at, x.updated_by.clone(), to_json(x)));
    let mut m = Merger {
        lost: Vec::new(),
        actor: l.updated_by.clone(),
        at: l.updated_at,
    };
    let mut out = w.clone();
    out.title = m.scalar("title", base.map(|b| &b.title), &w.title, &l.title);
    out.priority = m.scalar(
        "priority",
        base.map(|b| &b.priority),
        &w.priority,
        &l.priority,
    );
    out.kind = m.scalar("type", base.map(|b| &b.kind), &w.kind, &l.kind);
    out.assignee = m.scalar(
        "assignee",
        base.map(|b| &b.assignee),
        &w.assignee,
        &l.assignee,
    );
    out.created_at = m.scalar(
        "created_at",
        base.map(|b| &b.created_at),
        &w.created_at,
        &l.created_at,
    );
    out.created_by = m.scalar(
        "created_by",
        base.map(|b| &b.created_by),
        &w.created_by,
        &l.created_by,
    );
    let group = m.status_group(
        base.map(StatusGroup::of),
        StatusGroup::of(w),
        StatusGroup::of(l),
    );
    group.apply(&mut out);
    out.labels = merge_set(base.map(|b| &b.labels), &w.labels, &l.labels);
    out.dependencies = merge_sorted(
        base.map(|b| &b.dependencies),
        &w.dependencies,
        &l.dependencies,
    );
    out.external = merge_sorted(base.map(|b| &b.external), &w.external, &l.external);
    out.description = m.text(
        "description",
        base.map(|b| b.description.as_str()),
        &w.description,
        &l.description,
    );
    out.notes = m.text("notes", base.map(|b| b.notes.as_str()), &w.notes, &l.notes);
    out.comments = m.comments(
        base.map(|b| b.comments.as_slice()),
        &w.comments,
        &l.comments,
    );
    out.extra = m.extra(base.map(|b| &b.extra), &w.extra, &l.extra);
    // The merged bead was last changed when the later of its two versions was.
    out.updated_at = w.updated_at;
    out.updated_by = w.updated_by.clone();
    let mut conflicts = merge_list(
        base.map(|b| b.conflicts.as_slice()),
        &w.conflicts,
        &l.conflicts,
    );
    let added = m.lost.len();
    for c in m.lost {
        if !conflicts.contains(&c) {
            conflicts.push(c);
        }
    }
    out.conflicts = conflicts;
    Merged {
        value: out,
        conflicts: added,
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Collects the losing values of one merge.
struct Merger {
    lost: Vec<Conflict>,
    actor: String,
    at: Timestamp,
}

impl Merger {
    fn lose<T: Serialize>(&mut self, field: &str, value: &T) {
        self.lost.push(Conflict {
            field: field.to_owned(),
            value: serde_json::to_value(value).unwrap_or(serde_json::Value::Null),
            actor: self.actor.clone(),
            at: self.at,
        });
    }

    fn scalar<T: PartialEq + Clone + Serialize>(
        &mut self,
        field: &str,
        base: Option<&T>,
        w: &T,
        l: &T,
    ) -> T {
        if w == l || base == Some(l) {
            return w.clone();
        }
        if base == Some(w) {
            return l.clone();
        }
        self.lose(field, l);
        w.clone()
    }

    fn text(&mut self, field: &str, base: Option<&str>, w: &str, l: &str) -> String {
        let out = merge_text(base.unwrap_or(""), w, l);
        if out.conflicted {
            self.lose(field, &l);
        }
        out.text
    }

    fn status_group(
        &mut self,
        base: Option<StatusGroup>,
        w: StatusGroup,
        l: StatusGroup,
    ) -> StatusGroup {
        if w == l || base.as_ref() == Some(&l) {
            return w;
        }
        if base.as_ref() == Some(&w) {
            return l;
        }
        // Both changed the group. Field by field when that leaves no field changed
        // differently on both sides; otherwise the winner's whole group.
        let mut merged = w.clone();
        let mut clash = false;
        macro_rules! each {
            ($($f:ident),*) => {$(
                let b = base.as_ref().map(|b| &b.$f);
                if w.$f != l.$f {
                    if b == Some(&w.$f) {
                        merged.$f = l.$f.clone();
                    } else if b != Some(&l.$f) {
                        clash = true;
                    }
                }
            )*};
        }
        each!(
            status,
            closed_at,
            close_reason,
            deleted_at,
            deleted_by,
            delete_reason
        );
        if !clash {
            return merged;
        }
        macro_rules! lose {
            ($($f:ident),*) => {$(
                if l.$f != w.$f && base.as_ref().map(|b| &b.$f) != Some(&l.$f) {
                    self.lose(stringify!($f), &l.$f);
                }
            )*};
        }
        lose!(
            status,
            closed_at,
            close_reason,
            deleted_at,
            deleted_by,
            delete_reason
        );
        w
    }

    fn comments(&mut self, base: Option<&[Comment]>, w: &[Comment], l: &[Comment]) -> Vec<Comment> {
        let by_id = |cs: &[Comment]| -> BTreeMap<String, Comment> {
            cs.iter().map(|c| (c.id.clone(), c.clone())).collect()
        };
        let base = base.map(by_id).unwrap_or_default();
        let mut out = by_id(w);
        for c in l {
            match out.get(&c.id) {
                None => {
                    out.insert(c.id.clone(), c.clone());
                }
                Some(mine) if mine == c => {}
                Some(mine) => {
                    let field = format!("comments.{}", c.id);
                    let merged = self.scalar(&field, base.get(&c.id), mine, c);
                    out.insert(c.id.clone(), merged);
                }
            }
        }
        let mut out: Vec<Comment> = out.into_values().collect();
        out.sort_by(|x, y| (x.created_at, &x.id).cmp(&(y.created_at, &y.id)));
        out
    }

    fn extra(
        &mut self,
        base: Option<&BTreeMap<String, serde_json::Value>>,
        w: &BTreeMap<String, serde_json::Value>,
        l: &BTreeMap<String, serde_json::Value>,
    ) -> BTreeMap<String, serde_json::Value> {
        let keys: BTreeSet<&String> = w.keys().chain(l.keys()).collect();
        let mut out = BTreeMap::new();
        for k in keys {
            let b = base.and_then(|b| b.get(k));
            let field = format!("extra.{k}");
            match (w.get(k), l.get(k)) {
                (Some(x), Some(y)) => {
                    out.insert(k.clone(), self.scalar(&field, b, x, y));
                }
                (Some(x), None) => {
                    // The loser removed it: honoured unless the winner changed it.
                    if b != Some(x) {
                        out.insert(k.clone(), x.clone());
                    }
                }
                (None, Some(y)) => {
                    if b.is_none() {
                        out.insert(k.clone(), y.clone());
                    } else if b != Some(y) {
                        self.lose(&field, y);
                    }
                }
                (None, None) => {}
            }
        }
        out
    }
}

/// Status and the fields that go with it, merged as one.
#[derive(Clone, Debug, PartialEq)]
struct StatusGroup {
    status: Status,
    closed_at: Option<Timestamp>,
    close_reason: Option<String>,
    deleted_at: Option<Timestamp>,
    deleted_by: Option<String>,
    delete_reason: Option<String>,
}

impl StatusGroup {
    fn of(b: &Bead) -> StatusGroup {
        StatusGroup {
            status: b.status,
            closed_at: b.closed_at,
            close_reason: b.close_reason.clone(),
            deleted_at: b.deleted_at,
            deleted_by: b.deleted_by.clone(),
            delete_reason: b.delete_reason.clone(),
        }
    }

    fn apply(self, b: &mut Bead) {
        b.status = self.status;
        b.closed_at = self.closed_at;
        b.close_reason = self.close_reason;
        b.deleted_at = self.deleted_at;
        b.deleted_by = self.deleted_by;
        b.delete_reason = self.delete_reason;
    }
}

/// [`merge_set`] over sorted lists kept free of duplicates (a bead's dependencies).
fn merge_sorted<T: Ord + Clone>(base: Option<&Vec<T>>, a: &[T], b: &[T]) -> Vec<T> {
    let set = |v: &[T]| v.iter().cloned().collect::<BTreeSet<_>>();
    merge_set(base.map(|v| set(v)).as_ref(), &set(a), &set(b))
        .into_iter()
        .collect()
}

/// Three-way merge of a set: an element is kept when both sides have it or when
/// one side added it; removals on either side are honoured.
pub fn merge_set<T: Ord + Clone>(
    base: Option<&BTreeSet<T>>,
    a: &BTreeSet<T>,
    b: &BTreeSet<T>,
) -> BTreeSet<T> {
    let empty = BTreeSet::new();
    let base = base.unwrap_or(&empty);
    a.union(b)
        .filter(|x| (a.contains(*x) && b.contains(*x)) || !base.contains(*x))
        .cloned()
        .collect()
}

/// Three-way merge of a list treated as a set whose order is kept (for values that
/// are only comparable for equality): the winner's kept elements in its order, then
/// the loser's additions in theirs.
pub fn merge_list<T: PartialEq + Clone>(base: Option<&[T]>, w: &[T], l: &[T]) -> Vec<T> {
    let base = base.unwrap_or(&[]);
    let keep = |x: &T, other: &[T]| other.contains(x) || !base.contains(x);
    let mut out: Vec<T> = Vec::with_capacity(w.len() + l.len());
    for x in w.iter().filter(|x| keep(x, l)) {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    for x in l.iter().filter(|x| keep(x, w)) {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{BeadId, BeadType, DepKind, Dependency};
    use proptest::prelude::*;

    fn t(s: i64) -> Timestamp {
        Timestamp::from_timestamp(1_700_000_000 + s, 0).expect("valid time")
    }

    fn base() -> Bead {
        let mut b = Bead::new(
            BeadId::parse("bd-ab12").expect("id"),
            "Title".into(),
            "carol",
            t(0),
        );
        b.labels.insert("keep".into());
        b.labels.insert("gone".into());
        b.description = "one\ntwo\nthree\n".into();
        b
    }

    fn edit(b: &Bead, who: &str, at: i64, f: impl FnOnce(&mut Bead)) -> Bead {
        let mut b = b.clone();
        f(&mut b);
        b.touch(who, t(at));
        b
    }

    fn comment(id: &str, at: i64) -> Comment {
        Comment {
            id: id.into(),
            author: "x".into(),
            created_at: t(at),
            text: format!("comment {id}"),
        }
    }

    #[test]
    fn every_field_kind() {
        let base = base();
        let a = edit(&base, "alice", 10, |b| {
            b.title = "New title".into();
            b.labels.insert("a".into());
            b.labels.remove("gone");
            b.comments.push(comment("ca", 5));
            b.priority = 1;
            b.description = "ONE\ntwo\nthree\n".into();
        });
        let b = edit(&base, "bob", 20, |b| {
            b.labels.insert("b".into());
            b.comments.push(comment("cb", 6));
            b.priority = 3;
            b.description = "one\ntwo\nTHREE\n".into();
            b.add_dependency(Dependency {
                id: BeadId::parse("bd-x1").expect("id"),
                kind: DepKind::Blocks,
            });
        });
        let m = merge_bead(Some(&base), &a, &b);
        let v = &m.value;
        assert_eq!(v.title, "New title");
        assert_eq!(v.labels.iter().collect::<Vec<_>>(), ["a", "b", "keep"]);
        assert_eq!(v.comments.len(), 2);
        assert_eq!(v.priority, 3, "bob changed it later");
        assert_eq!(v.description, "ONE\ntwo\nTHREE\n");
        assert_eq!(v.dependencies.len(), 1);
        assert_eq!(m.conflicts, 1);
        assert_eq!(v.conflicts.len(), 1);
        assert_eq!(v.conflicts[0].field, "priority");
        assert_eq!(v.conflicts[0].value, serde_json::json!(1));
        assert_eq!(v.conflicts[0].actor, "alice");
        assert_eq!(v.updated_by, "bob");
        let back = merge_bead(Some(&base), &b, &a);
        assert_eq!(back.value, m.value);
    }

    #[test]
    fn status_group_stays_consistent() {
        let base = base();
        let a = edit(&base, "alice", 10, |b| {
            b.status = Status::Closed;
            b.closed_at = Some(t(10));
            b.close_reason = Some("done".into());
        });
        let b = edit(&base, "bob", 20, |b| {
            b.status = Status::InProgress;
        });
        let m = merge_bead(Some(&base), &a, &b).value;
        assert_eq!(m.status, Status::InProgress);
        assert_eq!(m.closed_at, None);
        assert_eq!(m.close_reason, None);
        let fields: Vec<&str> = m.conflicts.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["status", "closed_at", "close_reason"]);
        // A close on one side and a reason-only change that agrees field by field.
        let c = edit(&base, "bob", 20, |b| b.kind = BeadType::Bug);
        let m = merge_bead(Some(&base), &a, &c).value;
        assert_eq!(m.status, Status::Closed);
        assert_eq!(m.kind, BeadType::Bug);
        assert!(m.conflicts.is_empty());
    }

    #[test]
    fn resolve_on_one_side_sticks() {
        let base = base();
        let conflicted = edit(&base, "alice", 10, |b| {
            b.conflicts.push(Conflict {
                field: "title".into(),
                value: serde_json::json!("x"),
                actor: "bob".into(),
                at: t(3),
            })
        });
        let resolved = edit(&conflicted, "alice", 11, |b| b.conflicts.clear());
        let other = edit(&conflicted, "bob", 12, |b| b.priority = 0);
        let m = merge_bead(Some(&conflicted), &resolved, &other).value;
        assert!(m.conflicts.is_empty());
        assert_eq!(m.priority, 0);
    }

    #[test]
    fn independent_creations_merge_without_base() {
        let a = edit(&base(), "alice", 1, |b| b.title = "A".into());
        let b = edit(&base(), "bob", 2, |b| b.title = "B".into());
        let m = merge_bead(None, &a, &b).value;
        assert_eq!(m.title, "B");
        assert_eq!(m.conflicts.len(), 1);
        assert!(m.labels.contains("gone"));
    }

    // ---- property tests ------------------------------------------------------

    #[derive(Clone, Debug)]
    enum Op {
        Title(u8),
        Priority(u8),
        Assignee(Option<u8>),
        AddLabel(u8),
        RemoveLabel(u8),
        Comment(u8),
        Line(u8),
        Close(u8),
        Delete,
        Extra(u8, u8),
        AddDep(u8),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            any::<u8>().prop_map(Op::Title),
            (0u8..5).prop_map(Op::Priority),
            prop::option::of(0u8..3).prop_map(Op::Assignee),
            (0u8..6).prop_map(Op::AddLabel),
            (0u8..6).prop_map(Op::RemoveLabel),
            any::<u8>().prop_map(Op::Comment),
            any::<u8>().prop_map(Op::Line),
            (0u8..3).prop_map(Op::Close),
            Just(Op::Delete),
            ((0u8..3), any::<u8>()).prop_map(|(k, v)| Op::Extra(k, v)),
            (0u8..4).prop_map(Op::AddDep),
        ]
    }

    fn apply(b: &Bead, side: &str, ops: &[Op], at: i64) -> Bead {
        let mut b = b.clone();
        for (i, op) in ops.iter().enumerate() {
            match op {
                Op::Title(n) => b.title = format!("{side} title {n}"),
                Op::Priority(p) => b.priority = *p,
                Op::Assignee(a) => b.assignee = a.map(|a| format!("agent{a}")),
                Op::AddLabel(n) => {
                    b.labels.insert(format!("l{n}"));
                }
                Op::RemoveLabel(n) => {
                    b.labels.remove(&format!("l{n}"));
                }
                Op::Comment(n) => b
                    .comments
                    .push(comment(&format!("{side}{i}x{n}"), at + i as i64)),
                Op::Line(n) => b.description.push_str(&format!("{side} line {n}\n")),
                Op::Close(r) => {
                    b.status = Status::Closed;
                    b.closed_at = Some(t(at));
                    b.close_reason = Some(format!("reason {r}"));
                }
                Op::Delete => {
                    b.status = Status::Deleted;
                    b.deleted_at = Some(t(at));
                    b.deleted_by = Some(side.into());
                }
                Op::Extra(k, v) => {
                    b.extra.insert(format!("k{k}"), serde_json::json!(v));
                }
                Op::AddDep(n) => {
                    b.add_dependency(Dependency {
                        id: BeadId::parse(&format!("bd-d{n}")).expect("id"),
                        kind: DepKind::Related,
                    });
                }
            }
        }
        if !ops.is_empty() {
            b.touch(side, t(at));
        }
        b
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn deterministic_symmetric_idempotent(
            pre in prop::collection::vec(op(), 0..4),
            xs in prop::collection::vec(op(), 0..6),
            ys in prop::collection::vec(op(), 0..6),
            ta in 1i64..4,
            tb in 1i64..4,
        ) {
            let base = apply(&base(), "c", &pre, 0);
            let a = apply(&base, "alice", &xs, 100 + ta);
            let b = apply(&base, "bob", &ys, 100 + tb);
            let m = merge_bead(Some(&base), &a, &b);
            prop_assert_eq!(&merge_bead(Some(&base), &a, &b).value, &m.value);
            prop_assert_eq!(&merge_bead(Some(&base), &b, &a).value, &m.value);
            prop_assert_eq!(merge_bead(None, &a, &b).value, merge_bead(None, &b, &a).value);
            prop_assert_eq!(&merge_bead(Some(&base), &a, &a).value, &a);
            prop_assert_eq!(&merge_bead(Some(&base), &a, &base).value, &a);
            prop_assert_eq!(&merge_bead(Some(&base), &base, &b).value, &b);
            // Merging the result again with either input changes nothing more.
            prop_assert_eq!(&merge_bead(Some(&a), &m.value, &a).value, &m.value);
            prop_assert_eq!(&merge_bead(Some(&b), &b, &m.value).value, &m.value);

            // Nothing is lost: every change is in the result or in its conflicts.
            let v = &m.value;
            let kept = |field: &str, val: serde_json::Value, now: serde_json::Value| {
                now == val || v.conflicts.iter().any(|c| c.field == field && c.value == val)
            };
            for side in [&a, &b] {
                if side.title != base.title {
                    prop_assert!(kept("title", side.title.clone().into(), v.title.clone().into()));
                }
                if side.priority != base.priority {
                    prop_assert!(kept("priority", side.priority.into(), v.priority.into()));
                }
                for l in side.labels.difference(&base.labels) {
                    prop_assert!(v.labels.contains(l), "label {} lost", l);
                }
                for c in &side.comments {
                    prop_assert!(v.comments.iter().any(|x| x.id == c.id), "comment {} lost", c.id);
                }
                for line in side.description.lines() {
                    prop_assert!(
                        v.description.lines().any(|x| x == line)
                            || v.conflicts.iter().any(|c| c.field == "description"
                                && c.value.as_str().is_some_and(|t| t.lines().any(|x| x == line))),
                        "line {} lost", line
                    );
                }
                for d in &side.dependencies {
                    if !base.dependencies.contains(d) {
                        prop_assert!(v.dependencies.contains(d));
                    }
                }
            }
            let mut sorted = v.dependencies.clone();
            sorted.sort();
            prop_assert_eq!(&sorted, &v.dependencies);
        }
    }
}
