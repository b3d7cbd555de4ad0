//! bd's query language (`bd query`, its `internal/query`): comparisons of a bead's
//! fields joined by `AND`, `OR`, `NOT` and parentheses.
//!
//! ```text
//! status=open AND priority<=2 AND updated>7d
//! (status=open OR status=blocked) AND NOT label=gt:merge-request
//! ephemeral=true AND label=gt:merge-request AND title="fix login"
//! ```
//!
//! `NOT` binds tighter than `AND`, which binds tighter than `OR`; the keywords are
//! case-insensitive. A value is a word (letters, digits, `_ - . : *`), a number, a
//! duration (`7d`: seven days ago; `h d w m y`) or a quoted string. Parsing is pure;
//! [`Query::matches`] tests one bead.

use std::fmt;

use super::{Bead, Status, Timestamp};

/// A query that cannot be read or asks for what no bead has, with bd's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct QueryError(String);

/// Fails with `message`.
fn fail<T>(message: impl Into<String>) -> Result<T, QueryError> {
    Err(QueryError(message.into()))
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// How the query writes it.
    fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }

    /// Whether `a OP b` holds.
    fn holds<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            Op::Eq => a == b,
            Op::Ne => a != b,
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            Op::Ge => a >= b,
        }
    }
}

/// What the lexer reads.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    /// A word: a field name or a bare value.
    Word(String),
    /// A quoted string.
    Quoted(String),
    /// A number.
    Number(String),
    /// A duration: a number and one of `h d w m y`.
    Duration(String),
    Op(Op),
    And,
    Or,
    Not,
    Open,
    Close,
    Comma,
    End,
}

impl Token {
    /// How an error names it.
    fn describe(&self) -> String {
        match self {
            Token::Word(w) | Token::Number(w) | Token::Duration(w) => format!("{w:?}"),
            Token::Quoted(s) => format!("string {s:?}"),
            Token::Op(op) => op.as_str().to_owned(),
            Token::And => "AND".into(),
            Token::Or => "OR".into(),
            Token::Not => "NOT".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::Comma => ",".into(),
            Token::End => "the end of the query".into(),
        }
    }
}

/// Splits `text` into tokens, each with its byte position.
fn lex(text: &str) -> Result<Vec<(Token, usize)>, QueryError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = char::from(bytes[i]);
        let start = i;
        let two = |next: u8| bytes.get(i + 1) == Some(&next);
        let token = match c {
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            '(' => Token::Open,
            ')' => Token::Close,
            ',' => Token::Comma,
            '=' => Token::Op(Op::Eq),
            '!' if two(b'=') => Token::Op(Op::Ne),
            '!' => fail(format!(
                "unexpected character '!' at position {i} (did you mean '!=' or 'NOT'?)"
            ))?,
            '<' if two(b'=') => Token::Op(Op::Le),
            '<' => Token::Op(Op::Lt),
            '>' if two(b'=') => Token::Op(Op::Ge),
            '>' => Token::Op(Op::Gt),
            '"' | '\'' => {
                let (s, end) = quoted(text, i)?;
                out.push((Token::Quoted(s), start));
                i = end;
                continue;
            }
            _ if c.is_ascii_digit() || c == '-' || c == '+' => {
                let (token, end) = number(bytes, i)?;
                out.push((token, start));
                i = end;
                continue;
            }
            _ => {
                let end = text[i..]
                    .find(|c: char| !(c.is_alphanumeric() || "_-.:*".contains(c)))
                    .map_or(text.len(), |n| i + n);
                let first = text[i..].chars().next().unwrap_or(' ');
                if !(first.is_alphabetic() || first == '_') {
                    return fail(format!("unexpected character {first:?} at position {i}"));
                }
                out.push((keyword(&text[i..end]), start));
                i = end;
                continue;
            }
        };
        i += token_len(&token);
        out.push((token, start));
    }
    out.push((Token::End, text.len()));
    Ok(out)
}

/// A word, or the keyword it spells.
fn keyword(word: &str) -> Token {
    match word.to_ascii_uppercase().as_str() {
        "AND" => Token::And,
        "OR" => Token::Or,
        "NOT" => Token::Not,
        _ => Token::Word(word.to_owned()),
    }
}

/// How many bytes a punctuation token takes.
fn token_len(t: &Token) -> usize {
    match t {
        Token::Op(Op::Ne | Op::Le | Op::Ge) => 2,
        _ => 1,
    }
}

/// The string quoted at `start` (by `"` or `'`, with `\` escapes) and where it ends.
fn quoted(text: &str, start: usize) -> Result<(String, usize), QueryError> {
    let mut chars = text[start..].char_indices();
    let quote = chars.next().map(|(_, c)| c);
    let mut s = String::new();
    while let Some((n, c)) = chars.next() {
        if Some(c) == quote {
            return Ok((s, start + n + 1));
        }
        if c == '\\' {
            match chars.next().map(|(_, e)| e) {
                Some('n') => s.push('\n'),
                Some('t') => s.push('\t'),
                Some(e) => s.push(e),
                None => break,
            }
        } else {
            s.push(c);
        }
    }
    fail(format!("unterminated string starting at position {start}"))
}

/// The number or duration at `start` (an optional sign, digits, an optional unit)
/// and where it ends.
fn number(bytes: &[u8], start: usize) -> Result<(Token, usize), QueryError> {
    let mut i = start;
    if matches!(bytes[i], b'-' | b'+') {
        i += 1;
    }
    let digits = i;
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    if i == digits {
        return fail(format!("expected digit at position {i}"));
    }
    let text = |end: usize| String::from_utf8_lossy(&bytes[start..end]).into_owned();
    match bytes.get(i) {
        Some(b'h' | b'd' | b'w' | b'm' | b'y' | b'H' | b'D' | b'W' | b'M' | b'Y') => {
            Ok((Token::Duration(text(i + 1)), i + 1))
        }
        _ => Ok((Token::Number(text(i)), i)),
    }
}

/// A parsed query, as bd's parser builds it.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// `FIELD OP VALUE`.
    Compare {
        /// The field, lowercased.
        field: String,
        /// The operator.
        op: Op,
        /// The value as written (unquoted).
        value: String,
        /// Whether the value was a duration (`7d`).
        duration: bool,
    },
    /// Both.
    And(Box<Node>, Box<Node>),
    /// Either.
    Or(Box<Node>, Box<Node>),
    /// Not.
    Not(Box<Node>),
}

impl fmt::Display for Node {
    /// bd's `--parse-only` form: `(a=1 AND (b=2 OR NOT c=3))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Compare {
                field, op, value, ..
            } => write!(f, "{field}{}{value}", op.as_str()),
            Node::And(a, b) => write!(f, "({a} AND {b})"),
            Node::Or(a, b) => write!(f, "({a} OR {b})"),
            Node::Not(a) => write!(f, "NOT {a}"),
        }
    }
}

/// A recursive-descent parser over the tokens.
struct Parser {
    tokens: Vec<(Token, usize)>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.tokens[self.at.min(self.tokens.len() - 1)].0
    }

    fn pos(&self) -> usize {
        self.tokens[self.at.min(self.tokens.len() - 1)].1
    }

    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        self.at += 1;
        t
    }

    /// `or := and (OR and)*`
    fn or(&mut self) -> Result<Node, QueryError> {
        let mut left = self.and()?;
        while *self.peek() == Token::Or {
            self.bump();
            left = Node::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    /// `and := not (AND not)*`
    fn and(&mut self) -> Result<Node, QueryError> {
        let mut left = self.not()?;
        while *self.peek() == Token::And {
            self.bump();
            left = Node::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    /// `not := NOT not | '(' or ')' | FIELD OP VALUE`
    fn not(&mut self) -> Result<Node, QueryError> {
        match self.peek() {
            Token::Not => {
                self.bump();
                Ok(Node::Not(Box::new(self.not()?)))
            }
            Token::Open => {
                self.bump();
                let node = self.or()?;
                if *self.peek() != Token::Close {
                    return fail(format!(
                        "expected ')' at position {}, got {}",
                        self.pos(),
                        self.peek().describe()
                    ));
                }
                self.bump();
                Ok(node)
            }
            _ => self.compare(),
        }
    }

    fn compare(&mut self) -> Result<Node, QueryError> {
        let pos = self.pos();
        let field = match self.bump() {
            Token::Word(w) => w.to_lowercase(),
            t => {
                return fail(format!(
                    "expected field name at position {pos}, got {}",
                    t.describe()
                ));
            }
        };
        let pos = self.pos();
        let op = match self.bump() {
            Token::Op(op) => op,
            t => {
                return fail(format!(
                    "expected comparison operator after {field} at position {pos}, got {}",
                    t.describe()
                ));
            }
        };
        let pos = self.pos();
        let (value, duration) = match self.bump() {
            Token::Word(v) | Token::Quoted(v) | Token::Number(v) => (v, false),
            Token::Duration(v) => (v, true),
            t => {
                return fail(format!(
                    "expected value at position {pos}, got {}",
                    t.describe()
                ));
            }
        };
        Ok(Node::Compare {
            field,
            op,
            value,
            duration,
        })
    }
}

/// Parses `text` into bd's tree.
pub fn parse(text: &str) -> Result<Node, QueryError> {
    let mut p = Parser {
        tokens: lex(text)?,
        at: 0,
    };
    if *p.peek() == Token::End {
        return fail("empty query");
    }
    let node = p.or()?;
    if *p.peek() != Token::End {
        return fail(format!(
            "unexpected {} at position {} (expected end of query)",
            p.peek().describe(),
            p.pos()
        ));
    }
    Ok(node)
}

/// A text field that `=` searches (case-insensitive, contains).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TextField {
    Title,
    Description,
    Notes,
}

/// A time field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimeField {
    Created,
    Updated,
    Closed,
    Started,
}

/// A true-or-false field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flag {
    Pinned,
    Ephemeral,
    Template,
}

/// One comparison, checked and ready to test a bead.
#[derive(Clone, Debug, PartialEq)]
enum Test {
    /// `status`: the word, lowercased.
    Status(String),
    Priority(Op, u8),
    /// `type`: the word, lowercased.
    Type(String),
    /// `assignee` (`None`: nobody).
    Assignee(Option<String>),
    Owner(String),
    /// `label` (`None`: no labels).
    Label(Option<String>),
    /// Text contained (`None`: empty, for `description=none`).
    Text(TextField, Option<String>),
    Time(TimeField, Op, Timestamp),
    /// `id` or `spec` (`spec` when the flag is set): exact, or a prefix (`bd-*`).
    Id {
        spec: bool,
        value: String,
        prefix: bool,
    },
    Flag(Flag, bool),
    Parent(String),
    MolType(String),
    Metadata(String, String),
    HasMetadataKey(String),
}

/// A checked query.
#[derive(Clone, Debug, PartialEq)]
enum Expr {
    /// The test, and whether `!=` negates it.
    Test(Test, bool),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
}

/// A query, read and checked: what it says (for `--parse-only`) and the test of each
/// bead.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    node: Node,
    expr: Expr,
}

impl Query {
    /// Reads `text`, with relative times (`7d`) counted back from `now`.
    pub fn parse(text: &str, now: Timestamp) -> Result<Query, QueryError> {
        let node = parse(text)?;
        let expr = check(&node, now)?;
        Ok(Query { node, expr })
    }

    /// Whether the query compares `status` anywhere (then closed beads are not left
    /// out by default, as bd decides).
    pub fn names_status(&self) -> bool {
        fn walk(n: &Node) -> bool {
            match n {
                Node::Compare { field, .. } => field == "status",
                Node::And(a, b) | Node::Or(a, b) => walk(a) || walk(b),
                Node::Not(a) => walk(a),
            }
        }
        walk(&self.node)
    }

    /// The statuses and types the query names, to check against the project's words.
    pub fn words(&self) -> (Vec<&str>, Vec<&str>) {
        fn walk<'a>(e: &'a Expr, out: &mut (Vec<&'a str>, Vec<&'a str>)) {
            match e {
                Expr::Test(Test::Status(s), _) => out.0.push(s),
                Expr::Test(Test::Type(t), _) => out.1.push(t),
                Expr::Test(..) => {}
                Expr::And(a, b) | Expr::Or(a, b) => {
                    walk(a, out);
                    walk(b, out);
                }
                Expr::Not(a) => walk(a, out),
            }
        }
        let mut out = (Vec::new(), Vec::new());
        walk(&self.expr, &mut out);
        out
    }

    /// Whether `bead` matches.
    pub fn matches(&self, bead: &Bead) -> bool {
        fn eval(e: &Expr, b: &Bead) -> bool {
            match e {
                Expr::Test(t, negated) => test(t, b) != *negated,
                Expr::And(x, y) => eval(x, b) && eval(y, b),
                Expr::Or(x, y) => eval(x, b) || eval(y, b),
                Expr::Not(x) => !eval(x, b),
            }
        }
        eval(&self.expr, bead)
    }
}

/// Checks each comparison of `node`: a known field, an operator it takes, a value
/// of its kind.
fn check(node: &Node, now: Timestamp) -> Result<Expr, QueryError> {
    Ok(match node {
        Node::Compare {
            field,
            op,
            value,
            duration,
        } => comparison(field, *op, value, *duration, now)?,
        Node::And(a, b) => Expr::And(Box::new(check(a, now)?), Box::new(check(b, now)?)),
        Node::Or(a, b) => Expr::Or(Box::new(check(a, now)?), Box::new(check(b, now)?)),
        Node::Not(a) => Expr::Not(Box::new(check(a, now)?)),
    })
}

/// Whether `value` means "nothing" (`none`, `null` or empty), as bd reads it.
fn is_none(value: &str) -> bool {
    value.is_empty() || value.eq_ignore_ascii_case("none") || value.eq_ignore_ascii_case("null")
}

/// One comparison of `field`, checked.
fn comparison(
    field: &str,
    op: Op,
    value: &str,
    duration: bool,
    now: Timestamp,
) -> Result<Expr, QueryError> {
    // The fields that take only `=` and `!=` (`!=` negates the test).
    let eq = |test: Test| match op {
        Op::Eq => Ok(Expr::Test(test, false)),
        Op::Ne => Ok(Expr::Test(test, true)),
        _ => fail(format!("{field} does not support {} operator", op.as_str())),
    };
    let only_eq = |test: Test| match op {
        Op::Eq => Ok(Expr::Test(test, false)),
        _ => fail(format!("{field} only supports = operator")),
    };
    let lower = value.to_lowercase();
    let text = |f| eq(Test::Text(f, Some(lower.clone())));
    match field {
        "status" => match lower.parse::<Status>() {
            Ok(_) => eq(Test::Status(lower)),
            Err(_) => fail(format!("invalid status: {value}")),
        },
        "priority" => match value.parse::<u8>() {
            Ok(p) if p <= 4 => Ok(Expr::Test(Test::Priority(op, p), false)),
            _ => fail(format!("invalid priority value: {value} (0 to 4)")),
        },
        "type" => eq(Test::Type(lower)),
        "assignee" => eq(Test::Assignee((!is_none(value)).then(|| lower.clone()))),
        "owner" => eq(Test::Owner(lower)),
        "label" | "labels" => eq(Test::Label((!is_none(value)).then(|| lower.clone()))),
        "title" => text(TextField::Title),
        "description" | "desc" if is_none(value) => eq(Test::Text(TextField::Description, None)),
        "description" | "desc" => text(TextField::Description),
        "notes" => text(TextField::Notes),
        "created" | "created_at" => time(TimeField::Created, op, value, duration, now),
        "updated" | "updated_at" => time(TimeField::Updated, op, value, duration, now),
        "closed" | "closed_at" => time(TimeField::Closed, op, value, duration, now),
        "started" | "started_at" => time(TimeField::Started, op, value, duration, now),
        "id" | "spec" | "spec_id" => {
            let prefix = value.ends_with('*');
            if prefix && !matches!(op, Op::Eq | Op::Ne) {
                return fail(format!(
                    "{field} with wildcard only supports = and != operators"
                ));
            }
            eq(Test::Id {
                spec: field != "id",
                value: value.trim_end_matches('*').to_owned(),
                prefix,
            })
        }
        "pinned" => eq(Test::Flag(Flag::Pinned, boolean(value)?)),
        "ephemeral" => eq(Test::Flag(Flag::Ephemeral, boolean(value)?)),
        "template" => eq(Test::Flag(Flag::Template, boolean(value)?)),
        "parent" => only_eq(Test::Parent(value.to_owned())),
        "mol_type" => match lower.as_str() {
            "swarm" | "patrol" | "work" => only_eq(Test::MolType(lower.clone())),
            _ => fail(format!("invalid mol_type: {value} (swarm, patrol or work)")),
        },
        "has_metadata_key" => only_eq(Test::HasMetadataKey(metadata_key(value)?)),
        _ => match field.strip_prefix("metadata.") {
            Some(key) => only_eq(Test::Metadata(metadata_key(key)?, value.to_owned())),
            None => fail(format!("unknown field: {field}")),
        },
    }
}

/// A metadata key as bd takes one: a letter or `_`, then letters, digits, `_ . -`.
fn metadata_key(key: &str) -> Result<String, QueryError> {
    let mut chars = key.chars();
    let first = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first && chars.all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)) {
        return Ok(key.to_owned());
    }
    fail(format!("invalid metadata key: {key:?}"))
}

/// A true-or-false value (`true yes 1`, `false no 0`).
fn boolean(value: &str) -> Result<bool, QueryError> {
    match value.to_lowercase().as_str() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => fail(format!("invalid boolean value: {value}")),
    }
}

/// A comparison of a time field.
fn time(
    field: TimeField,
    op: Op,
    value: &str,
    duration: bool,
    now: Timestamp,
) -> Result<Expr, QueryError> {
    let at = when(value, duration, now).ok_or_else(|| {
        QueryError(format!(
            "cannot parse time expression: {value:?} (examples: 7d, 24h, 2025-01-15, today)"
        ))
    })?;
    Ok(Expr::Test(Test::Time(field, op, at), false))
}

/// The time `value` names: a duration back from `now` (`7d`; `+7d` forward), a date
/// (midnight UTC), an RFC 3339 time, `now`, `today`, `yesterday` or `tomorrow`.
fn when(value: &str, duration: bool, now: Timestamp) -> Option<Timestamp> {
    use chrono::{Duration, Months, NaiveDate, NaiveTime};
    if duration {
        let (body, unit) = value.split_at(value.len().checked_sub(1)?);
        let forward = body.starts_with('+');
        let n: u32 = body.trim_start_matches(['+', '-']).parse().ok()?;
        let step = |d: Duration| match forward {
            true => now.checked_add_signed(d),
            false => now.checked_sub_signed(d),
        };
        let months = |m: u32| match forward {
            true => now.checked_add_months(Months::new(m)),
            false => now.checked_sub_months(Months::new(m)),
        };
        return match unit.to_ascii_lowercase().as_str() {
            "h" => step(Duration::try_hours(n.into())?),
            "d" => step(Duration::try_days(n.into())?),
            "w" => step(Duration::try_weeks(n.into())?),
            "m" => months(n),
            _ => months(n.checked_mul(12)?),
        };
    }
    let midnight = |d: NaiveDate| d.and_time(NaiveTime::MIN).and_utc();
    match value.to_lowercase().as_str() {
        "now" => return Some(now),
        "today" => return Some(midnight(now.date_naive())),
        "yesterday" => return Some(midnight(now.date_naive().pred_opt()?)),
        "tomorrow" => return Some(midnight(now.date_naive().succ_opt()?)),
        _ => {}
    }
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(value) {
        return Some(t.with_timezone(&chrono::Utc));
    }
    for form in ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(value, form) {
            return Some(t.and_utc());
        }
    }
    NaiveDate::parse_from_str(value, "%Y-%m-%d")
        .ok()
        .map(midnight)
}

/// A string field of bd's kept in `extra`.
fn extra_str<'b>(b: &'b Bead, key: &str) -> Option<&'b str> {
    b.extra.get(key).and_then(|v| v.as_str())
}

/// A true-or-false field of bd's kept in `extra`.
fn extra_flag(b: &Bead, key: &str) -> bool {
    b.extra
        .get(key)
        .and_then(|v| v.as_bool())
        .unwrap_or_default()
}

/// Whether bead `b` passes `t` (before `!=` negates it).
fn test(t: &Test, b: &Bead) -> bool {
    let folded = |s: &str, want: &str| s.to_lowercase() == want;
    match t {
        Test::Status(s) => b.status.as_str() == s,
        Test::Priority(op, p) => op.holds(b.priority, *p),
        Test::Type(k) => b.kind.as_str() == k,
        Test::Assignee(None) => b.assignee.as_deref().is_none_or(str::is_empty),
        Test::Assignee(Some(a)) => b.assignee.as_deref().is_some_and(|x| folded(x, a)),
        Test::Owner(o) => extra_str(b, "owner").is_some_and(|x| folded(x, o)),
        Test::Label(None) => b.labels.is_empty(),
        Test::Label(Some(l)) => b.labels.iter().any(|x| folded(x, l)),
        Test::Text(f, needle) => {
            let text = match f {
                TextField::Title => &b.title,
                TextField::Description => &b.description,
                TextField::Notes => &b.notes,
            };
            match needle {
                None => text.is_empty(),
                Some(n) => text.to_lowercase().contains(n.as_str()),
            }
        }
        Test::Time(f, op, at) => time_of(b, *f).is_some_and(|t| compare_time(*op, t, *at)),
        Test::Id {
            spec,
            value,
            prefix,
        } => {
            let have = match spec {
                true => extra_str(b, "spec_id").unwrap_or_default(),
                false => b.id.as_str(),
            };
            match prefix {
                true => have.starts_with(value.as_str()),
                false => have == value,
            }
        }
        Test::Flag(f, want) => flag_of(b, *f) == *want,
        Test::Parent(p) => b.parent().is_some_and(|x| x.as_str() == p),
        Test::MolType(m) => extra_str(b, "mol_type") == Some(m.as_str()),
        Test::Metadata(k, want) => match b.extra.get("metadata").and_then(|m| m.get(k)) {
            Some(serde_json::Value::String(s)) => s == want,
            Some(serde_json::Value::Null) | None => false,
            Some(other) => other.to_string().trim_matches('"') == want,
        },
        Test::HasMetadataKey(k) => b.extra.get("metadata").is_some_and(|m| m.get(k).is_some()),
    }
}

/// The time field `f` of `b`, when it has one.
fn time_of(b: &Bead, f: TimeField) -> Option<Timestamp> {
    match f {
        TimeField::Created => Some(b.created_at),
        TimeField::Updated => Some(b.updated_at),
        TimeField::Closed => b.closed_at,
        TimeField::Started => extra_str(b, "started_at")
            .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
            .map(|t| t.with_timezone(&chrono::Utc)),
    }
}

/// `have OP at`, where `=` and `!=` compare the day (as bd does).
fn compare_time(op: Op, have: Timestamp, at: Timestamp) -> bool {
    match op {
        Op::Eq => have.date_naive() == at.date_naive(),
        Op::Ne => have.date_naive() != at.date_naive(),
        _ => op.holds(have, at),
    }
}

/// The flag `f` of `b`.
fn flag_of(b: &Bead, f: Flag) -> bool {
    match f {
        Flag::Pinned => b.status == Status::Pinned || extra_flag(b, "pinned"),
        Flag::Ephemeral => extra_flag(b, "ephemeral"),
        Flag::Template => extra_flag(b, "is_template"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> String {
        parse(text)
            .map(|n| n.to_string())
            .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn not_binds_tighter_than_and_and_and_than_or() {
        assert_eq!(tree("a=1 OR b=2 and NOT c=3"), "(a=1 OR (b=2 AND NOT c=3))");
        assert_eq!(tree("(a=1 or b=2) AND c>=7d"), "((a=1 OR b=2) AND c>=7d)");
        assert_eq!(tree("not not a!=x"), "NOT NOT a!=x");
        assert_eq!(tree("label=gt:merge-request"), "label=gt:merge-request");
        assert_eq!(tree("title='fix \\'it\\''"), "title=fix 'it'");
        assert_eq!(tree("created>\"2025-01-15\""), "created>2025-01-15");
    }

    #[test]
    fn a_bad_query_says_where() {
        assert_eq!(tree(""), "empty query");
        assert_eq!(
            tree("status=open AND"),
            "expected field name at position 15, got the end of the query"
        );
        assert_eq!(
            tree("status open"),
            "expected comparison operator after status at position 7, got \"open\""
        );
        assert_eq!(
            tree("(status=open"),
            "expected ')' at position 12, got the end of the query"
        );
        assert_eq!(
            tree("status=open)"),
            "unexpected ) at position 11 (expected end of query)"
        );
        assert!(tree("a!b").contains("did you mean '!=' or 'NOT'"));
        assert!(tree("title=\"open").contains("unterminated string"));
        assert!(tree("a=#").contains("unexpected character '#' at position 2"));
    }

    #[test]
    fn comparisons_are_checked_against_their_fields() {
        let now = chrono::Utc::now();
        let err = |q: &str| Query::parse(q, now).err().map(|e| e.to_string());
        assert_eq!(err("colour=red").as_deref(), Some("unknown field: colour"));
        assert_eq!(
            err("status>open").as_deref(),
            Some("status does not support > operator")
        );
        assert!(err("priority=9").is_some_and(|e| e.contains("invalid priority")));
        assert!(err("pinned=maybe").is_some_and(|e| e.contains("invalid boolean")));
        assert!(err("updated>soon").is_some_and(|e| e.contains("cannot parse time")));
        assert!(err("parent!=x").is_some_and(|e| e.contains("only supports =")));
        assert_eq!(err("metadata.k=v AND has_metadata_key=k"), None);
        assert_eq!(err("id=bd-* AND spec!=x"), None);
    }

    #[test]
    fn a_bead_is_tested_field_by_field() {
        let now = chrono::Utc::now();
        let mut b = Bead::new(
            crate::model::BeadId::parse("bd-a1").expect("id"),
            "Fix the Login".into(),
            "me",
            now - chrono::Duration::days(3),
        );
        b.labels.insert("gt:merge-request".into());
        b.extra.insert("ephemeral".into(), true.into());
        b.extra.insert(
            "metadata".into(),
            serde_json::json!({"branch": "main", "n": 3}),
        );
        let yes = |q: &str| Query::parse(q, now).expect(q).matches(&b);
        assert!(yes(
            "ephemeral=true AND label=gt:merge-request AND status=open"
        ));
        assert!(yes("title=login AND NOT title=logout AND priority<=2"));
        assert!(yes(
            "created<2d AND created>7d AND updated<=now AND updated!=today"
        ));
        assert!(yes("assignee=none AND label!=urgent AND description=none"));
        assert!(yes(
            "metadata.branch=main AND metadata.n=3 AND has_metadata_key=n"
        ));
        assert!(yes("id=bd-* AND id!=bd-a2 AND (type=bug OR type=task)"));
        assert!(!yes("status!=open OR pinned=true OR closed>30d"));
        assert!(!yes("parent=bd-x OR mol_type=patrol OR owner=me"));
    }
}
