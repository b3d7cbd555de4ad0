//! The generic three-way merge of a document whose schema this module does not
//! know (agents, sessions, mail, and whatever comes next).
//!
//! Works on the model's generic document trees ([`crate::model::doc`]), which keep
//! the key order of mappings; the store's codec does the parsing and the encoding.

use super::text::merge_text;
use super::{Side, pick};
use crate::model::Timestamp;
use crate::model::doc::{Mapping, Value};

/// The root keys that say when and by whom a document last changed.
const UPDATED_AT: &str = "updated_at";
const UPDATED_BY: &str = "updated_by";
/// The root key under which losing values are kept.
const CONFLICTS: &str = "conflicts";

/// The result of merging two versions of a generic document.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueOutcome {
    /// The merged document.
    pub value: Value,
    /// How many losing values were recorded.
    pub conflicts: usize,
    /// Set when values were lost but the document has no place to keep them (its
    /// root is not a mapping, or its `conflicts` is not a list): the caller must keep
    /// this side's whole document elsewhere.
    pub keep_loser: Option<Side>,
}

/// Merges two versions of a generic document against their common ancestor
/// (`None` when both sides created it independently), field by field:
///
/// - a value changed on one side takes that side; a key added on one side is kept,
///   a key removed on one side is removed unless the other side changed it;
/// - mappings merge key by key, recursively;
/// - sequences both sides changed merge as an ordered union that never drops an
///   element (sequences of mappings with an `id` merge element by element);
/// - strings with line breaks merge line by line;
/// - a value changed differently on both sides takes the winner's — the version
///   with the later root `updated_at`, then the greater `updated_by` — and the
///   loser's value is appended to the root `conflicts:` list as
///   `{field, value, actor, at}`.
///
/// The result does not depend on which side is called `a`.
pub fn merge_value(base: Option<&Value>, a: &Value, b: &Value) -> ValueOutcome {
    let (w, l) = pick(a, b, winner_key);
    let loser = if std::ptr::eq(l, a) { Side::A } else { Side::B };
    let clean = |v: &Value| ValueOutcome {
        value: v.clone(),
        conflicts: 0,
        keep_loser: None,
    };
    if w == l || base == Some(l) {
        return clean(w);
    }
    if base == Some(w) {
        return clean(l);
    }
    let mut m = Merger {
        lost: Vec::new(),
        actor: l.get(UPDATED_BY).cloned().unwrap_or(Value::Null),
        at: l.get(UPDATED_AT).cloned().unwrap_or(Value::Null),
    };
    let mut value = match (w, l) {
        (Value::Mapping(wm), Value::Mapping(lm)) => {
            let bm = base.and_then(Value::as_mapping);
            Value::Mapping(m.root(bm, wm, lm))
        }
        _ => m.node("", base, w, l),
    };
    let conflicts = m.lost.len();
    if conflicts == 0 {
        return ValueOutcome {
            value,
            conflicts,
            keep_loser: None,
        };
    }
    let list = value.as_mapping_mut().and_then(|root| {
        root.get_or_insert_with(CONFLICTS.into(), || Value::Sequence(Vec::new()))
            .as_sequence_mut()
    });
    match list {
        Some(list) => {
            for c in m.lost {
                if !list.contains(&c) {
                    list.push(c);
                }
            }
            ValueOutcome {
                value,
                conflicts,
                keep_loser: None,
            }
        }
        None => ValueOutcome {
            value: w.clone(),
            conflicts,
            keep_loser: Some(loser),
        },
    }
}

/// Orders the two versions: later `updated_at`, then greater `updated_by`, then
/// their full content, so the order is total.
fn winner_key(v: &Value) -> (Option<Timestamp>, String, String) {
    let at = v
        .get(UPDATED_AT)
        .and_then(Value::as_str)
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&chrono::Utc));
    let by = match v.get(UPDATED_BY) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    };
    (at, by, format!("{v:?}"))
}

struct Merger {
    lost: Vec<Value>,
    actor: Value,
    at: Value,
}

fn key_name(k: &Value) -> String {
    match k {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_owned()
    } else {
        format!("{path}.{name}")
    }
}

impl Merger {
    fn lose(&mut self, field: &str, value: Option<&Value>) {
        let mut c = Mapping::new();
        c.insert("field".into(), field.into());
        c.insert("value".into(), value.cloned().unwrap_or(Value::Null));
        c.insert("actor".into(), self.actor.clone());
        if !self.at.is_null() {
            c.insert("at".into(), self.at.clone());
        }
        self.lost.push(Value::Mapping(c));
    }

    /// The root mapping: like any other, except for the bookkeeping keys.
    fn root(&mut self, base: Option<&Mapping>, w: &Mapping, l: &Mapping) -> Mapping {
        // The bookkeeping keys keep their place; the merged document last changed
        // when its winning version did.
        let mut out = self.mapping("", base, w, l, &[UPDATED_AT, UPDATED_BY, CONFLICTS]);
        fn seq(m: Option<&Mapping>) -> Option<Option<&Vec<Value>>> {
            m.and_then(|m| m.get_str(CONFLICTS)).map(Value::as_sequence)
        }
        match (seq(base), seq(Some(w)), seq(Some(l))) {
            (None | Some(Some(_)), None | Some(Some(_)), None | Some(Some(_))) => {
                let list = super::bead::merge_list(
                    seq(base).flatten().map(Vec::as_slice),
                    seq(Some(w)).flatten().map(Vec::as_slice).unwrap_or(&[]),
                    seq(Some(l)).flatten().map(Vec::as_slice).unwrap_or(&[]),
                );
                if list.is_empty() {
                    out.remove_str(CONFLICTS);
                } else {
                    out.insert(CONFLICTS.into(), Value::Sequence(list));
                }
            }
            _ => {
                // Not a list of conflicts: an ordinary field.
                let b = base.and_then(|b| b.get_str(CONFLICTS));
                if let (Some(x), Some(y)) = (w.get_str(CONFLICTS), l.get_str(CONFLICTS)) {
                    let v = self.node(CONFLICTS, b, x, y);
                    out.insert(CONFLICTS.into(), v);
                }
            }
        }
        out
    }

    fn mapping(
        &mut self,
        path: &str,
        base: Option<&Mapping>,
        w: &Mapping,
        l: &Mapping,
        skip: &[&str],
    ) -> Mapping {
        let mut out = Mapping::new();
        let keys = w.keys().chain(l.keys().filter(|k| !w.contains_key(k)));
        for k in keys {
            if k.as_str().is_some_and(|k| skip.contains(&k)) {
                if let Some(v) = w.get(k).or_else(|| l.get(k)) {
                    out.insert(k.clone(), v.clone());
                }
                continue;
            }
            let field = join(path, &key_name(k));
            let b = base.and_then(|b| b.get(k));
            match (w.get(k), l.get(k)) {
                (Some(x), Some(y)) => {
                    let v = self.node(&field, b, x, y);
                    out.insert(k.clone(), v);
                }
                (Some(x), None) => {
                    // Removed by the loser: honoured unless the winner changed it.
                    if b != Some(x) {
                        out.insert(k.clone(), x.clone());
                    }
                }
                (None, Some(y)) => {
                    if b.is_none() {
                        out.insert(k.clone(), y.clone());
                    } else if b != Some(y) {
                        // Removed by the winner, changed by the loser: keep the change.
                        self.lose(&field, Some(y));
                    }
                }
                (None, None) => {}
            }
        }
        out
    }

    fn node(&mut self, path: &str, base: Option<&Value>, w: &Value, l: &Value) -> Value {
        if w == l || base == Some(l) {
            return w.clone();
        }
        if base == Some(w) {
            return l.clone();
        }
        match (w, l) {
            (Value::Mapping(wm), Value::Mapping(lm)) => {
                Value::Mapping(self.mapping(path, base.and_then(Value::as_mapping), wm, lm, &[]))
            }
            (Value::Sequence(ws), Value::Sequence(ls)) => {
                Value::Sequence(self.sequence(path, base.and_then(Value::as_sequence), ws, ls))
            }
            (Value::String(ws), Value::String(ls))
                if ws.contains('\n')
                    || ls.contains('\n')
                    || base
                        .and_then(Value::as_str)
                        .is_some_and(|b| b.contains('\n')) =>
            {
                let out = merge_text(base.and_then(Value::as_str).unwrap_or(""), ws, ls);
                if out.conflicted {
                    self.lose(path, Some(l));
                }
                Value::String(out.text)
            }
            _ => {
                self.lose(path, Some(l));
                w.clone()
            }
        }
    }

    fn sequence(
        &mut self,
        path: &str,
        base: Option<&Vec<Value>>,
        w: &[Value],
        l: &[Value],
    ) -> Vec<Value> {
        if let (Some(wi), Some(li)) = (ids(w), ids(l)) {
            let bi = base.and_then(|b| ids(b));
            let mut out = Vec::with_capacity(w.len() + l.len());
            for (id, x) in wi.iter().zip(w) {
                let v = match li.iter().position(|o| o == id) {
                    Some(i) => {
                        let b = bi
                            .as_ref()
                            .and_then(|bi| bi.iter().position(|o| o == id))
                            .and_then(|i| base.and_then(|b| b.get(i)));
                        self.node(&join(path, &key_name(id)), b, x, &l[i])
                    }
                    None => x.clone(),
                };
                out.push(v);
            }
            for (id, y) in li.iter().zip(l) {
                if !wi.contains(id) {
                    out.push(y.clone());
                }
            }
            return out;
        }
        // An ordered union that never drops an element: the winner's elements in
        // order, then those of the loser's it does not have (counting repeats).
        let mut out = w.to_vec();
        let mut unmatched: Vec<&Value> = w.iter().collect();
        for y in l {
            match unmatched.iter().position(|x| *x == y) {
                Some(i) => {
                    unmatched.remove(i);
                }
                None => out.push(y.clone()),
            }
        }
        out
    }
}

/// The `id` of every element when all are mappings with a distinct scalar `id`.
fn ids(seq: &[Value]) -> Option<Vec<Value>> {
    let mut out: Vec<Value> = Vec::with_capacity(seq.len());
    for v in seq {
        let id = v.as_mapping()?.get_str("id")?;
        if !matches!(id, Value::String(_) | Value::Number(_)) || out.contains(id) {
            return None;
        }
        out.push(id.clone());
    }
    (!seq.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A document written as JSON (this module reads no YAML).
    fn y(s: &str) -> Value {
        fn tree(v: serde_json::Value) -> Value {
            match v {
                serde_json::Value::Null => Value::Null,
                serde_json::Value::Bool(b) => Value::Bool(b),
                serde_json::Value::Number(n) => Value::from(n.as_i64().expect("an integer")),
                serde_json::Value::String(s) => Value::String(s),
                serde_json::Value::Array(a) => Value::Sequence(a.into_iter().map(tree).collect()),
                serde_json::Value::Object(o) => Value::Mapping(
                    o.into_iter()
                        .map(|(k, v)| (Value::String(k), tree(v)))
                        .collect(),
                ),
            }
        }
        tree(serde_json::from_str(s).expect("json"))
    }

    #[test]
    fn field_wise_with_conflicts() {
        let base = y(
            r#"{"name": "a", "role": "x", "list": [1, 2], "body": "l1\nl2\nl3\n", "updated_at": "2026-01-01T00:00:00Z", "updated_by": "c"}"#,
        );
        let a = y(
            r#"{"name": "A", "role": "y", "list": [1, 2, 3], "body": "L1\nl2\nl3\n", "updated_at": "2026-01-01T00:00:05Z", "updated_by": "alice"}"#,
        );
        let b = y(
            r#"{"name": "a", "role": "z", "list": [2, 4], "body": "l1\nl2\nL3\n", "updated_at": "2026-01-01T00:00:09Z", "updated_by": "bob", "new": 1}"#,
        );
        let m = merge_value(Some(&base), &a, &b);
        assert_eq!(m, merge_value(Some(&base), &b, &a));
        let v = &m.value;
        assert_eq!(v["name"], y(r#""A""#));
        assert_eq!(v["role"], y(r#""z""#), "bob is later");
        assert_eq!(
            v["list"],
            y("[2, 4, 1, 3]"),
            "ordered union, nothing dropped"
        );
        assert_eq!(v["body"], y(r#""L1\nl2\nL3\n""#));
        assert_eq!(v["new"], y("1"));
        assert_eq!(v["updated_by"], y(r#""bob""#));
        assert_eq!(m.conflicts, 1);
        assert_eq!(
            v["conflicts"],
            y(
                r#"[{"field": "role", "value": "y", "actor": "alice", "at": "2026-01-01T00:00:05Z"}]"#
            )
        );
        assert_eq!(m.keep_loser, None);
    }

    #[test]
    fn sequences_of_records_merge_by_id() {
        let base = y(r#"{"msgs": [{"id": "m1", "read": false}]}"#);
        let a = y(r#"{"msgs": [{"id": "m1", "read": true}, {"id": "m2", "read": false}]}"#);
        let b = y(r#"{"msgs": [{"id": "m1", "read": false, "flag": "x"}, {"id": "m3"}]}"#);
        let m = merge_value(Some(&base), &a, &b);
        assert_eq!(m, merge_value(Some(&base), &b, &a));
        let msgs = m.value["msgs"].as_sequence().expect("list");
        assert_eq!(msgs.len(), 3);
        let m1 = msgs.iter().find(|v| v["id"] == y(r#""m1""#)).expect("m1");
        assert_eq!(m1["read"], y("true"));
        assert_eq!(m1["flag"], y(r#""x""#));
    }

    #[test]
    fn nowhere_to_keep_the_loser() {
        let m = merge_value(Some(&y("1")), &y("2"), &y("3"));
        assert_eq!(m.conflicts, 1);
        assert!(m.keep_loser.is_some());
        let m = merge_value(
            Some(&y(r#"{"a": 1, "conflicts": 7}"#)),
            &y(r#"{"a": 2, "conflicts": 7}"#),
            &y(r#"{"a": 3, "conflicts": 7}"#),
        );
        assert!(m.keep_loser.is_some());
    }

    #[test]
    fn removal_against_change() {
        let base = y(r#"{"a": 1, "b": 1, "updated_by": "c"}"#);
        let a = y(r#"{"b": 1, "updated_by": "x"}"#);
        let b = y(r#"{"a": 2, "b": 1, "updated_by": "y"}"#);
        // bob (y) wins and changed `a`: the change stays.
        let m = merge_value(Some(&base), &a, &b);
        assert_eq!(m.value["a"], y("2"));
        assert_eq!(m.conflicts, 0);
        // When the remover wins, the changed value is kept in conflicts.
        let a = y(r#"{"b": 1, "updated_by": "z"}"#);
        let m = merge_value(Some(&base), &a, &b);
        assert!(m.value.get("a").is_none());
        assert_eq!(m.conflicts, 1);
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (0i64..5).prop_map(Value::from),
            prop::sample::select(vec!["x", "y", "l1\nl2\n", "l1\nL2\n", "a\nb"])
                .prop_map(|s| Value::String(s.into())),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Sequence),
                prop::collection::vec(
                    (
                        prop::sample::select(vec![
                            "id",
                            "k",
                            "conflicts",
                            "updated_at",
                            "updated_by"
                        ]),
                        inner
                    ),
                    0..4
                )
                .prop_map(|kv| Value::Mapping(
                    kv.into_iter()
                        .map(|(k, v)| (Value::String(k.into()), v))
                        .collect()
                )),
            ]
        })
    }

    fn doc() -> impl Strategy<Value = Value> {
        (
            prop::collection::vec(
                (
                    prop::sample::select(vec!["a", "b", "c", "id", "list"]),
                    value(),
                ),
                0..5,
            ),
            prop::option::of(prop::sample::select(vec![
                "2026-01-01T00:00:01Z",
                "2026-01-01T00:00:02Z",
                "junk",
            ])),
            prop::option::of(prop::sample::select(vec!["alice", "bob"])),
        )
            .prop_map(|(kv, at, by)| {
                let mut m: Mapping = kv
                    .into_iter()
                    .map(|(k, v)| (Value::String(k.into()), v))
                    .collect();
                if let Some(at) = at {
                    m.insert(UPDATED_AT.into(), at.into());
                }
                if let Some(by) = by {
                    m.insert(UPDATED_BY.into(), by.into());
                }
                Value::Mapping(m)
            })
    }

    fn any_doc() -> impl Strategy<Value = Value> {
        prop_oneof![4 => doc(), 1 => value()]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn deterministic_symmetric_idempotent(base in prop::option::of(any_doc()), a in any_doc(), b in any_doc()) {
            let m = merge_value(base.as_ref(), &a, &b);
            let r = merge_value(base.as_ref(), &b, &a);
            prop_assert_eq!(format!("{:?}", m.value), format!("{:?}", r.value));
            prop_assert_eq!(m.conflicts, r.conflicts);
            prop_assert_eq!(m.keep_loser.is_some(), r.keep_loser.is_some());
            prop_assert_eq!(format!("{:?}", merge_value(base.as_ref(), &a, &b).value), format!("{:?}", m.value));
            prop_assert_eq!(&merge_value(base.as_ref(), &a, &a).value, &a);
            if let Some(base) = &base {
                prop_assert_eq!(&merge_value(Some(base), &a, base).value, &a);
                prop_assert_eq!(&merge_value(Some(base), base, &b).value, &b);
            }
            // Elements of sequences both sides changed are never dropped.
            let base_list = base.as_ref().and_then(|b| b.get("list"));
            if let (Some(x), Some(y), Some(out)) = (a.get("list"), b.get("list"), m.value.get("list"))
                && base_list != Some(x)
                && base_list != Some(y)
                && let (Some(x), Some(y), Some(out)) = (x.as_sequence(), y.as_sequence(), out.as_sequence())
                && (ids(x).is_none() || ids(y).is_none())
            {
                for e in x.iter().chain(y) {
                    prop_assert!(out.contains(e), "{:?} dropped", e);
                }
            }
        }
    }
}
