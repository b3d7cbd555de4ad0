//! A document as a generic tree of values, for documents whose schema the model does
//! not know (agents, sessions, mail, and whatever a newer git-beads writes).
//!
//! The store's codec reads YAML into this tree and writes it back; the generic merge
//! works on it. It is a plain data type: no I/O, no YAML. Equality, ordering keys and
//! the text forms follow YAML's data model (a mapping equals another with the same
//! entries in any order; a tag's leading `!` is not significant), so that a document
//! read into the tree compares and prints as YAML's own value tree does.

use std::fmt::{self, Debug, Display};
use std::hash::{DefaultHasher, Hash, Hasher};

use indexmap::IndexMap;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// One node of a document.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// `~`, `null`, or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// A list.
    Sequence(Vec<Value>),
    /// A mapping, keys in the order they were read.
    Mapping(Mapping),
    /// A value with a tag (`!thing value`).
    Tagged(Box<Tagged>),
}

/// A number, as YAML reads it: a non-negative integer, a negative one, or a float.
#[derive(Clone, Copy)]
pub enum Number {
    /// A non-negative integer.
    PosInt(u64),
    /// A negative integer.
    NegInt(i64),
    /// A float (every NaN is the same number).
    Float(f64),
}

/// A tagged value: the tag (with its leading `!`) and the value.
#[derive(Clone)]
pub struct Tagged {
    /// The tag, as written (`!thing`).
    pub tag: String,
    /// The value tagged.
    pub value: Value,
}

/// A mapping that keeps its keys in order; equal to another with the same entries
/// in any order.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Mapping {
    map: IndexMap<Value, Value>,
}

/// What [`Value`]'s index gives for a key that is not there.
static NULL: Value = Value::Null;

impl Value {
    /// The value under `key` when this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_mapping()?.get_str(key)
    }

    /// The string, when this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The mapping, when this is one.
    pub fn as_mapping(&self) -> Option<&Mapping> {
        match self {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    /// The mapping, mutable, when this is one.
    pub fn as_mapping_mut(&mut self) -> Option<&mut Mapping> {
        match self {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    /// The list, when this is one.
    pub fn as_sequence(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Sequence(s) => Some(s),
            _ => None,
        }
    }

    /// The list, mutable, when this is one.
    pub fn as_sequence_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Sequence(s) => Some(s),
            _ => None,
        }
    }

    /// Whether this is [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

impl std::ops::Index<&str> for Value {
    type Output = Value;

    /// The value under `key`, or null when there is none.
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(if n < 0 {
            Number::NegInt(n)
        } else {
            Number::PosInt(n.unsigned_abs())
        })
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        match (*self, *other) {
            (Number::PosInt(a), Number::PosInt(b)) => a == b,
            (Number::NegInt(a), Number::NegInt(b)) => a == b,
            (Number::Float(a), Number::Float(b)) => (a.is_nan() && b.is_nan()) || a == b,
            _ => false,
        }
    }
}

impl Eq for Number {}

impl Hash for Number {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match *self {
            // Floats that are equal can have different bits (0.0 and -0.0, NaNs).
            Number::Float(_) => 3.hash(state),
            Number::PosInt(u) => u.hash(state),
            Number::NegInt(i) => i.hash(state),
        }
    }
}

impl Display for Number {
    /// YAML's spelling: `.nan`, `.inf`, `-.inf`, otherwise the shortest form that
    /// reads back as the same number.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Number::PosInt(u) => Display::fmt(&u, f),
            Number::NegInt(i) => Display::fmt(&i, f),
            Number::Float(x) if x.is_nan() => f.write_str(".nan"),
            Number::Float(x) if x.is_infinite() && x.is_sign_negative() => f.write_str("-.inf"),
            Number::Float(x) if x.is_infinite() => f.write_str(".inf"),
            Number::Float(x) => f.write_str(ryu::Buffer::new().format_finite(x)),
        }
    }
}

/// A tag without its leading `!` (a tag of just `!` keeps it).
fn nobang(tag: &str) -> &str {
    match tag.strip_prefix('!') {
        Some("") | None => tag,
        Some(rest) => rest,
    }
}

impl PartialEq for Tagged {
    fn eq(&self, other: &Tagged) -> bool {
        nobang(&self.tag) == nobang(&other.tag) && self.value == other.value
    }
}

impl Eq for Tagged {}

impl Hash for Tagged {
    fn hash<H: Hasher>(&self, state: &mut H) {
        nobang(&self.tag).hash(state);
        self.value.hash(state);
    }
}

impl Mapping {
    /// An empty mapping.
    pub fn new() -> Mapping {
        Mapping::default()
    }

    /// The value under `key`.
    pub fn get(&self, key: &Value) -> Option<&Value> {
        self.map.get(key)
    }

    /// The value under the string key `key`.
    pub fn get_str(&self, key: &str) -> Option<&Value> {
        self.map.get(&Value::from(key))
    }

    /// Whether the mapping has `key`.
    pub fn contains_key(&self, key: &Value) -> bool {
        self.map.contains_key(key)
    }

    /// Sets `key` to `value`: in its place when the key is there, else at the end.
    pub fn insert(&mut self, key: Value, value: Value) -> Option<Value> {
        self.map.insert(key, value)
    }

    /// Removes the string key `key`, keeping the order of the others.
    pub fn remove_str(&mut self, key: &str) -> Option<Value> {
        self.map.shift_remove(&Value::from(key))
    }

    /// The value under `key`, inserting `make()` at the end first when it is not there.
    pub fn get_or_insert_with(&mut self, key: Value, make: impl FnOnce() -> Value) -> &mut Value {
        self.map.entry(key).or_insert_with(make)
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &Value> {
        self.map.keys()
    }

    /// The entries, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&Value, &Value)> {
        self.map.iter()
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl Hash for Mapping {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Not sensitive to the order of the entries, as equality is not.
        let mut xor = 0;
        for (k, v) in &self.map {
            let mut hasher = DefaultHasher::new();
            k.hash(&mut hasher);
            v.hash(&mut hasher);
            xor ^= hasher.finish();
        }
        xor.hash(state);
    }
}

impl FromIterator<(Value, Value)> for Mapping {
    fn from_iter<I: IntoIterator<Item = (Value, Value)>>(iter: I) -> Mapping {
        Mapping {
            map: iter.into_iter().collect(),
        }
    }
}

impl IntoIterator for Mapping {
    type Item = (Value, Value);
    type IntoIter = indexmap::map::IntoIter<Value, Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.map.into_iter()
    }
}

/// Debug forms spelled as YAML's own value tree spells them: the generic merge
/// orders two versions by this text when nothing else tells them apart, so it must
/// not change from one release to the next.
impl Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Null => f.write_str("Null"),
            Value::Bool(b) => write!(f, "Bool({b})"),
            Value::Number(n) => write!(f, "Number({n})"),
            Value::String(s) => write!(f, "String({s:?})"),
            Value::Sequence(s) => {
                f.write_str("Sequence ")?;
                f.debug_list().entries(s).finish()
            }
            Value::Mapping(m) => Debug::fmt(m, f),
            Value::Tagged(t) => Debug::fmt(t, f),
        }
    }
}

impl Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Number({self})")
    }
}

/// Writes its text with `Display` inside a `Debug` form.
struct Plain<'a>(&'a dyn Display);

impl Debug for Plain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Display::fmt(self.0, f)
    }
}

impl Debug for Mapping {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("Mapping ")?;
        let mut map = f.debug_map();
        for (k, v) in &self.map {
            match k {
                Value::Bool(b) => map.entry(b, v),
                Value::Number(n) => map.entry(&Plain(n), v),
                Value::String(s) => map.entry(s, v),
                _ => map.entry(k, v),
            };
        }
        map.finish()
    }
}

impl Debug for Tagged {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("TaggedValue")
            .field("tag", &Plain(&TagKey(&self.tag)))
            .field("value", &self.value)
            .finish()
    }
}

/// Serialized as YAML's own value tree is, so that encoding a tree read from a
/// document writes the same document.
impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(Number::PosInt(u)) => serializer.serialize_u64(*u),
            Value::Number(Number::NegInt(i)) => serializer.serialize_i64(*i),
            Value::Number(Number::Float(f)) => serializer.serialize_f64(*f),
            Value::String(s) => serializer.serialize_str(s),
            Value::Sequence(s) => serializer.collect_seq(s),
            Value::Mapping(m) => m.serialize(serializer),
            Value::Tagged(t) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(&TagKey(&t.tag), &t.value)?;
                map.end()
            }
        }
    }
}

impl Serialize for Mapping {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

/// A tag as the key of a map of one entry: how YAML's serializer is told to write a
/// tag (it recognises a key written as `!` and then the tag, in two pieces).
struct TagKey<'a>(&'a str);

impl Display for TagKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "!{}", nobang(self.0))
    }
}

impl Serialize for TagKey<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}
