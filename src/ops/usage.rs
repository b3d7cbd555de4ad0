//! What a session spends, as its harness says: the turns read from the harness'
//! transcript (Claude Code's JSONL, Codex CLI's rollout, Gemini CLI's session file), priced,
//! written to the session's local ledger at once and folded into the store at intervals;
//! and the budget guard a harness asks before every tool call, which reads only that ledger.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;

use super::agent::binding;
use super::session_doc::{finish, load_session, save_session};
use super::{Result, SessionError, now, write};
use crate::model::{
    Actor, AgentName, BeadId, Budget, BudgetLeft, EndReason, LedgerEntry, ModelSwap, Session,
    Timestamp, TokenKinds, TranscriptCursor, Usage, UsageLine, parse_duration,
};
use crate::settings;
use crate::store::Store;

/// How often a session's turns are folded into the store unless `beads.ledgerInterval`
/// says otherwise.
const DEFAULT_INTERVAL_SECS: u64 = 5 * 60;

/// Dollars per million tokens of one model, by kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Input tokens written to the prompt cache (5-minute cache).
    pub cache_write: f64,
    /// Input tokens read from the prompt cache.
    pub cache_read: f64,
}

impl Price {
    const fn new(input: f64, output: f64, cache_write: f64, cache_read: f64) -> Price {
        Price {
            input,
            output,
            cache_write,
            cache_read,
        }
    }

    /// Parses `INPUT OUTPUT CACHE_WRITE CACHE_READ`, dollars per million tokens.
    fn parse(words: &[&str]) -> Option<Price> {
        let n: Vec<f64> = words
            .iter()
            .map(|w| w.parse().ok().filter(|x: &f64| x.is_finite() && *x >= 0.0))
            .collect::<Option<_>>()?;
        match n[..] {
            [input, output, cache_write, cache_read] => {
                Some(Price::new(input, output, cache_write, cache_read))
            }
            _ => None,
        }
    }

    /// What `t` costs at this price, in dollars.
    fn of(&self, t: &TokenKinds) -> f64 {
        (t.input as f64 * self.input
            + t.output as f64 * self.output
            + t.cache_write as f64 * self.cache_write
            + t.cache_read as f64 * self.cache_read)
            / 1e6
    }
}

/// List prices of current Claude (Anthropic), OpenAI and Gemini (Google, prompts up to
/// 200 000 tokens) models, by model id prefix (the longest matching prefix wins).
/// OpenAI and Google bill no cache writes (their harnesses report none), so theirs
/// cost what input does. A model missing here has no price unless `beads.price`
/// gives one: its tokens are recorded and its spend is unknown.
pub const DEFAULT_PRICES: &[(&str, Price)] = &[
    ("claude-opus-4-5", Price::new(5.0, 25.0, 6.25, 0.5)),
    ("claude-opus-4-1", Price::new(15.0, 75.0, 18.75, 1.5)),
    ("claude-opus-4-20", Price::new(15.0, 75.0, 18.75, 1.5)),
    ("claude-sonnet-4-5", Price::new(3.0, 15.0, 3.75, 0.3)),
    ("claude-sonnet-4-20", Price::new(3.0, 15.0, 3.75, 0.3)),
    ("claude-haiku-4-5", Price::new(1.0, 5.0, 1.25, 0.1)),
    ("claude-3-7-sonnet", Price::new(3.0, 15.0, 3.75, 0.3)),
    ("claude-3-5-haiku", Price::new(0.8, 4.0, 1.0, 0.08)),
    ("gpt-5", Price::new(1.25, 10.0, 1.25, 0.125)),
    ("gpt-5-mini", Price::new(0.25, 2.0, 0.25, 0.025)),
    ("gpt-5-nano", Price::new(0.05, 0.4, 0.05, 0.005)),
    ("gpt-4.1", Price::new(2.0, 8.0, 2.0, 0.5)),
    ("gpt-4.1-mini", Price::new(0.4, 1.6, 0.4, 0.1)),
    ("gpt-4.1-nano", Price::new(0.1, 0.4, 0.1, 0.025)),
    ("gpt-4o", Price::new(2.5, 10.0, 2.5, 1.25)),
    ("gpt-4o-mini", Price::new(0.15, 0.6, 0.15, 0.075)),
    ("o3", Price::new(2.0, 8.0, 2.0, 0.5)),
    ("o3-mini", Price::new(1.1, 4.4, 1.1, 0.55)),
    ("o4-mini", Price::new(1.1, 4.4, 1.1, 0.275)),
    ("codex-mini", Price::new(1.5, 6.0, 1.5, 0.375)),
    ("gemini-2.5-pro", Price::new(1.25, 10.0, 1.25, 0.125)),
    ("gemini-2.5-flash", Price::new(0.3, 2.5, 0.3, 0.03)),
    ("gemini-2.5-flash-lite", Price::new(0.1, 0.4, 0.1, 0.01)),
    ("gemini-3-pro", Price::new(2.0, 12.0, 2.0, 0.2)),
];

/// The prices in effect: `beads.price` entries (`MODEL INPUT OUTPUT CACHE_WRITE
/// CACHE_READ`, where MODEL is a prefix of model ids) before the defaults.
struct Prices(Vec<(String, Price)>);

impl Prices {
    fn load(store: &Store) -> Prices {
        let configured = store
            .git()
            .config_strings(settings::PRICE)
            .into_iter()
            .filter_map(|v| {
                let words: Vec<&str> = v.split_whitespace().collect();
                let (model, rest) = words.split_first()?;
                Some(((*model).to_owned(), Price::parse(rest)?))
            });
        let mut all: Vec<(String, Price)> = configured.collect();
        all.extend(DEFAULT_PRICES.iter().map(|(m, p)| ((*m).to_owned(), *p)));
        Prices(all)
    }

    /// The price of `model`: the longest matching prefix, configured ones first.
    fn of(&self, model: &str) -> Option<Price> {
        let mut best: Option<(usize, Price)> = None;
        for (prefix, price) in &self.0 {
            if model.starts_with(prefix.as_str()) && best.is_none_or(|(len, _)| prefix.len() > len)
            {
                best = Some((prefix.len(), *price));
            }
        }
        best.map(|(_, p)| p)
    }
}

/// 64-bit FNV-1a: a stable hash of a transcript line, the same in every build.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The fields of a transcript line that count: Claude Code's (an `assistant` line with
/// its API message), a Codex CLI rollout's (`turn_context`, `event_msg` and
/// `response_item` lines with a `payload`), or a Gemini CLI session file's (a `gemini`
/// message record, written again each time its tokens or tool calls are filled in).
#[derive(Deserialize)]
struct TranscriptLine {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "requestId")]
    request_id: Option<String>,
    uuid: Option<String>,
    message: Option<ApiMessage>,
    payload: Option<CodexPayload>,
    id: Option<String>,
    model: Option<String>,
    /// Read as Gemini's only on a `gemini` line, so that another harness' field of the
    /// same name never makes its line unreadable.
    tokens: Option<serde_json::Value>,
    #[serde(rename = "toolCalls")]
    tool_calls: Option<serde_json::Value>,
}

/// The tokens of one Gemini response, as Gemini CLI records them from the API's
/// `usageMetadata` (`input` counts the cached tokens too; `thoughts` bill as output).
#[derive(Deserialize)]
struct GeminiTokens {
    #[serde(default)]
    input: u64,
    #[serde(default)]
    output: u64,
    #[serde(default)]
    cached: u64,
    #[serde(default)]
    thoughts: u64,
    #[serde(default)]
    tool: u64,
}

impl GeminiTokens {
    fn kinds(&self) -> TokenKinds {
        TokenKinds {
            input: self.input.saturating_sub(self.cached) + self.tool,
            output: self.output + self.thoughts,
            cache_write: 0,
            cache_read: self.cached,
        }
    }
}

#[derive(Deserialize)]
struct GeminiCall {
    id: Option<String>,
}

impl TranscriptLine {
    /// The messages a Gemini record stands for: its response, keyed by its id, once its
    /// tokens are filled in, and one per tool call, keyed by the call's id, so that each
    /// counts once however often the record is written again.
    fn gemini_messages(self) -> Vec<(String, Message)> {
        let Some(id) = self.id else {
            return Vec::new();
        };
        let tokens = self
            .tokens
            .and_then(|t| serde_json::from_value::<GeminiTokens>(t).ok());
        let calls = self
            .tool_calls
            .and_then(|c| serde_json::from_value::<Vec<GeminiCall>>(c).ok())
            .unwrap_or_default();
        let mut out: Vec<(String, Message)> = tokens
            .map(|t| {
                let m = Message {
                    model: self.model,
                    tokens: t.kinds(),
                    tools: BTreeSet::new(),
                };
                (format!("gemini:{id}"), m)
            })
            .into_iter()
            .collect();
        out.extend(calls.into_iter().filter_map(|c| {
            let call = c.id?;
            let m = Message {
                model: None,
                tokens: TokenKinds::default(),
                tools: BTreeSet::from([call.clone()]),
            };
            Some((format!("gemini-call:{call}"), m))
        }));
        out
    }
}

#[derive(Deserialize)]
struct CodexPayload {
    #[serde(rename = "type")]
    kind: Option<String>,
    model: Option<String>,
    info: Option<CodexInfo>,
    call_id: Option<String>,
}

#[derive(Deserialize)]
struct CodexInfo {
    total_token_usage: Option<CodexUsage>,
}

/// Codex's running token totals (`output_tokens` includes the reasoning tokens).
#[derive(Deserialize)]
struct CodexUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

impl CodexUsage {
    fn kinds(&self) -> TokenKinds {
        TokenKinds {
            input: self.input_tokens.saturating_sub(self.cached_input_tokens),
            output: self.output_tokens,
            cache_write: 0,
            cache_read: self.cached_input_tokens,
        }
    }
}

/// What a Codex rollout said since the cursor: its model, running totals and tool calls.
#[derive(Default)]
struct CodexChunk {
    model: Option<String>,
    totals: Option<TokenKinds>,
    calls: Vec<String>,
}

impl CodexChunk {
    fn add(&mut self, p: &CodexPayload) {
        match p.kind.as_deref() {
            Some("token_count") => {
                if let Some(t) = p.info.as_ref().and_then(|i| i.total_token_usage.as_ref()) {
                    self.totals = Some(t.kinds());
                }
            }
            Some("function_call" | "custom_tool_call" | "local_shell_call") => {
                self.calls.extend(p.call_id.clone());
            }
            _ => {}
        }
    }

    /// The messages it stands for: one with the tokens used since `before` (the totals
    /// at the cursor), keyed by the new totals so that it is counted once, and one per
    /// tool call, keyed by its call id.
    fn messages(self, before: Option<&TokenKinds>) -> Vec<(String, Message)> {
        let mut out = Vec::new();
        if let Some(t) = self.totals {
            let base = before
                .filter(|b| b.total() <= t.total())
                .copied()
                .unwrap_or_default();
            let tokens = TokenKinds {
                input: t.input.saturating_sub(base.input),
                output: t.output.saturating_sub(base.output),
                cache_write: 0,
                cache_read: t.cache_read.saturating_sub(base.cache_read),
            };
            out.push((
                format!("codex-total:{}", t.total()),
                Message {
                    model: self.model,
                    tokens,
                    tools: BTreeSet::new(),
                },
            ));
        }
        out.extend(self.calls.into_iter().map(|id| {
            let key = format!("codex-call:{id}");
            (
                key,
                Message {
                    model: None,
                    tokens: TokenKinds::default(),
                    tools: BTreeSet::from([id]),
                },
            )
        }));
        out
    }
}

#[derive(Deserialize)]
struct ApiMessage {
    id: Option<String>,
    model: Option<String>,
    usage: Option<ApiUsage>,
    #[serde(default)]
    content: serde_json::Value,
}

#[derive(Deserialize, Default)]
struct ApiUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: u64,
}

/// One assistant message, gathered from the transcript lines that carry it.
#[derive(Default)]
struct Message {
    model: Option<String>,
    tokens: TokenKinds,
    tools: BTreeSet<String>,
}

impl Message {
    /// Adds one line of the message: the usage is the message's, repeated on every line
    /// (streaming fills it in), so each kind keeps its largest value; tool calls add up.
    fn add(&mut self, m: &ApiMessage) {
        if let Some(model) = m.model.as_ref().filter(|m| !m.starts_with('<')) {
            self.model = Some(model.clone());
        }
        if let Some(u) = &m.usage {
            let t = &mut self.tokens;
            t.input = t.input.max(u.input_tokens);
            t.output = t.output.max(u.output_tokens);
            t.cache_write = t.cache_write.max(u.cache_creation_input_tokens);
            t.cache_read = t.cache_read.max(u.cache_read_input_tokens);
        }
        for block in m.content.as_array().into_iter().flatten() {
            if block["type"] == "tool_use" {
                let id = block["id"]
                    .as_str()
                    .map_or_else(|| format!("#{}", self.tools.len()), str::to_owned);
                self.tools.insert(id);
            }
        }
    }
}

/// What a read of the transcript found since the cursor.
struct Chunk {
    /// The messages not counted before, in transcript order, with their keys.
    messages: Vec<(String, Message)>,
    cursor: TranscriptCursor,
}

/// Reads the transcript at `path` from `cursor` (from the start when there is none, or
/// when the file shrank or its line at the cursor changed), leaving out messages whose
/// key is in `seen`, and a last line still being written.
fn read_transcript(
    path: &Path,
    cursor: Option<&TranscriptCursor>,
    seen: &BTreeSet<String>,
) -> std::io::Result<Chunk> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let start = match cursor {
        Some(c) if c.offset <= len && c.last_len <= c.offset => {
            let mut last = vec![0; usize::try_from(c.last_len).unwrap_or(0)];
            file.seek(SeekFrom::Start(c.offset - c.last_len))?;
            file.read_exact(&mut last)?;
            if fnv1a(&last) == c.hash { c.offset } else { 0 }
        }
        _ => 0,
    };
    file.seek(SeekFrom::Start(start))?;
    let mut text = Vec::new();
    file.read_to_end(&mut text)?;
    let complete = text.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut order: Vec<String> = Vec::new();
    let mut messages: BTreeMap<String, Message> = BTreeMap::new();
    let mut last: &[u8] = &[];
    let mut codex = CodexChunk::default();
    for line in text[..complete].split_inclusive(|b| *b == b'\n') {
        last = line;
        let Ok(l) = serde_json::from_slice::<TranscriptLine>(line) else {
            continue;
        };
        if let Some(p) = &l.payload {
            if l.kind.as_deref() == Some("turn_context") {
                codex.model = p.model.clone().or(codex.model);
            }
            codex.add(p);
            continue;
        }
        if l.kind.as_deref() == Some("gemini") {
            for (key, m) in l.gemini_messages() {
                if !seen.contains(&key) && !messages.contains_key(&key) {
                    order.push(key.clone());
                    messages.insert(key, m);
                }
            }
            continue;
        }
        let (Some("assistant"), Some(m)) = (l.kind.as_deref(), &l.message) else {
            continue;
        };
        let Some(key) = m.id.clone().or(l.request_id).or(l.uuid) else {
            continue;
        };
        if seen.contains(&key) {
            continue;
        }
        messages
            .entry(key.clone())
            .or_insert_with(|| {
                order.push(key);
                Message::default()
            })
            .add(m);
    }
    let path = path.display().to_string();
    let before = cursor.and_then(|c| c.totals);
    let totals = codex.totals.or(before);
    let mut found: Vec<(String, Message)> = order
        .into_iter()
        .filter_map(|k| messages.remove(&k).map(|m| (k, m)))
        .collect();
    found.extend(
        codex
            .messages(before.as_ref())
            .into_iter()
            .filter(|(k, _)| !seen.contains(k)),
    );
    let cursor = match cursor {
        Some(c) if complete == 0 && start > 0 => c.clone(),
        _ => TranscriptCursor {
            path,
            offset: start + complete as u64,
            last_len: last.len() as u64,
            hash: fnv1a(last),
            totals,
        },
    };
    Ok(Chunk {
        messages: found,
        cursor,
    })
}

/// A session's local ledger, read.
struct Ledger {
    entries: Vec<LedgerEntry>,
}

impl Ledger {
    fn read(store: &Store, id: &BeadId) -> Result<Ledger> {
        Ok(Ledger {
            entries: store.read_ledger(id)?,
        })
    }

    fn start(&self) -> Option<(Timestamp, &Budget, &Usage)> {
        self.entries.iter().find_map(|e| match e {
            LedgerEntry::Start {
                started_at,
                budget,
                usage,
            } => Some((*started_at, budget, usage)),
            _ => None,
        })
    }

    fn turns(&self) -> impl Iterator<Item = (&UsageLine, &[ModelSwap])> {
        self.entries.iter().filter_map(|e| match e {
            LedgerEntry::Turn { line, swaps, .. } => Some((line, swaps.as_slice())),
            _ => None,
        })
    }

    /// How many turns the store holds, and when they were last folded in.
    fn flushed(&self) -> (usize, Option<Timestamp>) {
        self.entries
            .iter()
            .rev()
            .find_map(|e| match e {
                LedgerEntry::Flushed { at, turns } => Some((*turns, Some(*at))),
                _ => None,
            })
            .unwrap_or((0, None))
    }

    fn ended(&self) -> Option<(EndReason, &[String])> {
        self.entries.iter().rev().find_map(|e| match e {
            LedgerEntry::Ended { reason, over, .. } => Some((*reason, over.as_slice())),
            _ => None,
        })
    }

    fn seen(&self) -> BTreeSet<String> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                LedgerEntry::Turn { messages, .. } => Some(messages.iter().cloned()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    fn cursor(&self, path: &str) -> Option<&TranscriptCursor> {
        self.entries.iter().rev().find_map(|e| match e {
            LedgerEntry::Turn {
                cursor: Some(c), ..
            } if c.path == path => Some(c),
            _ => None,
        })
    }

    fn model(&self) -> Option<&str> {
        self.turns().filter_map(|(l, _)| l.model.as_deref()).last()
    }

    fn delivered(&self) -> BTreeSet<&str> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                LedgerEntry::Delivered { mail, .. } => Some(mail.iter().map(String::as_str)),
                _ => None,
            })
            .flatten()
            .collect()
    }

    /// The usage the ledger knows of: the store's when it began, plus every turn since.
    fn usage(&self) -> Option<Usage> {
        let (_, _, base) = self.start()?;
        let mut u = base.clone();
        for (line, _) in self.turns() {
            u.add(line);
        }
        Some(u)
    }

    /// The ceilings crossed as of `at`, in words.
    fn overruns(&self, at: Timestamp) -> Vec<String> {
        match (self.start(), self.usage()) {
            (Some((started_at, budget, _)), Some(u)) => {
                BudgetLeft::of(budget, &u, started_at, at).overruns()
            }
            _ => Vec::new(),
        }
    }

    /// The turns not in the store yet.
    fn unflushed(&self) -> Unflushed {
        let (done, _) = self.flushed();
        let lines: Vec<(UsageLine, Vec<ModelSwap>)> = self
            .turns()
            .skip(done)
            .map(|(l, s)| (l.clone(), s.to_vec()))
            .collect();
        Unflushed {
            turns: done + lines.len(),
            lines,
        }
    }
}

/// Turns of a session's local ledger not yet in the store.
pub(crate) struct Unflushed {
    lines: Vec<(UsageLine, Vec<ModelSwap>)>,
    /// How many turns the store holds once these are in.
    turns: usize,
}

impl Unflushed {
    /// The turns of session `id` that only its local ledger has.
    pub(crate) fn of(store: &Store, id: &BeadId) -> Result<Unflushed> {
        Ok(Ledger::read(store, id)?.unflushed())
    }

    /// Adds the turns to `s`: its ledger, totals, model and model swaps. A line the
    /// session already has (folded in by a process that died before noting it) is not
    /// added again.
    pub(crate) fn apply(&self, s: &mut Session) {
        for (line, swaps) in &self.lines {
            if s.ledger.contains(line) {
                continue;
            }
            s.models.extend(swaps.iter().cloned());
            if let Some(m) = &line.model {
                s.model = Some(m.clone());
            }
            s.usage.add(line);
            s.ledger.push(line.clone());
        }
    }

    /// Notes in the local ledger that the store now has these turns, and that the
    /// session ended, when it did.
    pub(crate) fn done(
        &self,
        store: &Store,
        id: &BeadId,
        ended: Option<(EndReason, Vec<String>)>,
    ) -> Result<()> {
        let at = now();
        let mut entries = vec![LedgerEntry::Flushed {
            at,
            turns: self.turns,
        }];
        if let Some((reason, over)) = ended {
            entries.push(LedgerEntry::Ended { at, reason, over });
        }
        Ok(store.append_ledger(id, &entries)?)
    }
}

/// Begins the local ledger of session `s`, unless it has one: what the guard needs to
/// judge the session without reading the store.
pub(crate) fn begin_ledger(store: &Store, s: &Session) -> Result<()> {
    let ledger = Ledger::read(store, &s.id)?;
    if ledger.start().is_some() {
        return Ok(());
    }
    Ok(store.append_ledger(
        &s.id,
        &[LedgerEntry::Start {
            started_at: s.started_at,
            budget: s.authority.budget.clone(),
            usage: s.usage.clone(),
        }],
    )?)
}

/// `s` with the turns that only the local ledger holds added: what the session has
/// really used so far.
pub(crate) fn with_local(store: &Store, mut s: Session) -> Result<Session> {
    if s.is_open() {
        Unflushed::of(store, &s.id)?.apply(&mut s);
    }
    Ok(s)
}

/// When a session's turns go to the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flush {
    /// Not now (the caller folds them in itself, as `session end` does).
    Never,
    /// Once `beads.ledgerInterval` has passed since the last time, or a ceiling is crossed.
    IfDue,
    /// Now (compaction, handoff).
    Now,
}

/// What a harness hook reports at the end of a turn.
#[derive(Clone, Debug)]
pub struct TurnOptions<'a> {
    /// The harness' transcript, when it has one (Claude Code's `transcript_path`).
    pub transcript: Option<&'a Path>,
    /// Whether this closes one of the session's turns (a subagent's end does not).
    pub turn: bool,
    /// When to fold the turns into the store.
    pub flush: Flush,
}

/// What recording a turn did.
#[derive(Clone, Debug)]
pub struct TurnReport {
    /// The session, with every turn so far (the local ones too).
    pub session: Session,
    /// The ledger line written, when the transcript had anything new.
    pub line: Option<UsageLine>,
    /// Whether the turns were folded into the store.
    pub flushed: bool,
    /// The ceilings crossed, in words: then the session has ended as `budget`.
    pub over: Vec<String>,
}

/// Records a turn of `actor`'s running session from its harness: reads the transcript
/// from where the last turn left it (counting no message twice), writes one ledger line
/// to the local ledger at once, and folds the local turns into the store as
/// `opts.flush` says. A turn that crosses a ceiling folds them in and ends the session
/// as `budget`, in one commit.
pub fn record_turn(store: &Store, actor: &Actor, opts: TurnOptions<'_>) -> Result<TurnReport> {
    let id = actor
        .session
        .clone()
        .ok_or_else(|| SessionError::NoneRunning(actor.id.clone()))?;
    let _lock = store.lock_ledger(&id)?;
    let session = load_session(&store.view()?, &id)?;
    begin_ledger(store, &session)?;
    let ledger = Ledger::read(store, &id)?;
    let line = match opts.transcript {
        Some(path) => read_turn(store, &ledger, path, opts.turn)?,
        None => None,
    };
    if let Some(entry) = &line {
        store.append_ledger(&id, std::slice::from_ref(entry))?;
    }
    let ledger = Ledger::read(store, &id)?;
    let at = now();
    let over = ledger.overruns(at);
    let unflushed = ledger.unflushed();
    let due = match opts.flush {
        Flush::Never => false,
        Flush::Now => !unflushed.lines.is_empty(),
        Flush::IfDue => {
            let last = ledger.flushed().1.unwrap_or(session.started_at);
            let interval = interval_secs(store);
            !unflushed.lines.is_empty() && (at - last).num_seconds().max(0) as u64 >= interval
        }
    };
    let end_now = !over.is_empty() && ledger.ended().is_none();
    let line = line.and_then(|e| match e {
        LedgerEntry::Turn { line, .. } => Some(line),
        _ => None,
    });
    if !(due || end_now) {
        let mut s = session;
        unflushed.apply(&mut s);
        return Ok(TurnReport {
            session: s,
            line,
            flushed: false,
            over,
        });
    }
    let s = fold(store, actor, &id, &unflushed, end_now.then(|| over.clone()))?;
    Ok(TurnReport {
        session: s,
        line,
        flushed: true,
        over,
    })
}

/// Folds `u` into session `id` in one commit, ending it as `budget` when `over` says
/// which ceilings it crossed.
fn fold(
    store: &Store,
    actor: &Actor,
    id: &BeadId,
    u: &Unflushed,
    over: Option<Vec<String>>,
) -> Result<Session> {
    let s = write(store, actor, |tx| {
        let mut s = load_session(tx, id)?;
        let at = now();
        u.apply(&mut s);
        s.heartbeat_at = at;
        s.updated_at = at;
        s.updated_by = actor.id.clone();
        let verb = if over.is_some() && s.is_open() {
            finish(tx, actor, &mut s, at, EndReason::Budget, None)?;
            "end over budget"
        } else {
            "ledger"
        };
        save_session(tx, &s)?;
        tx.set_message(format!("session {verb} {id}: {} turns", s.usage.turns));
        Ok(s)
    })?;
    u.done(store, id, over.map(|o| (EndReason::Budget, o)))?;
    Ok(s)
}

/// The ledger entry of a turn read from the transcript at `path`, if it added anything.
fn read_turn(
    store: &Store,
    ledger: &Ledger,
    path: &Path,
    turn: bool,
) -> Result<Option<LedgerEntry>> {
    let chunk = match read_transcript(
        path,
        ledger.cursor(&path.display().to_string()),
        &ledger.seen(),
    ) {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(SessionError::Transcript {
                path: path.to_owned(),
                error: e.to_string(),
            }
            .into());
        }
    };
    // Lines without a new message (a prompt, tool results) are read again with the
    // next turn's rather than recorded as a turn of their own.
    if chunk.messages.is_empty() {
        return Ok(None);
    }
    let prices = Prices::load(store);
    let at = now();
    let mut tokens = TokenKinds::default();
    let mut spend = 0.0;
    let mut unpriced = false;
    let mut tool_calls = 0;
    let mut model = ledger.model().map(str::to_owned);
    let mut swaps = Vec::new();
    for (_, m) in &chunk.messages {
        tokens.add(&m.tokens);
        tool_calls += m.tools.len() as u64;
        match m.model.as_deref().and_then(|name| prices.of(name)) {
            Some(p) => spend += p.of(&m.tokens),
            None => unpriced |= !m.tokens.is_empty(),
        }
        if let Some(new) = &m.model {
            if let Some(old) = model.as_ref().filter(|old| *old != new) {
                swaps.push(ModelSwap {
                    at,
                    from: Some(old.clone()),
                    to: new.clone(),
                });
            }
            model = Some(new.clone());
        }
    }
    Ok(Some(LedgerEntry::Turn {
        line: UsageLine {
            at,
            turn,
            tokens: tokens.total(),
            spend: (spend * 1e6).round() / 1e6,
            tool_calls,
            model,
            by_kind: tokens,
            unpriced,
        },
        messages: chunk.messages.into_iter().map(|(k, _)| k).collect(),
        swaps,
        cursor: Some(chunk.cursor),
    }))
}

fn interval_secs(store: &Store) -> u64 {
    store
        .git()
        .config_string(settings::LEDGER_INTERVAL)
        .and_then(|v| parse_duration(v.trim()).ok())
        .unwrap_or(DEFAULT_INTERVAL_SECS)
}

/// What the guard says about the next tool call or prompt.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Go on.
    Allow,
    /// The session crossed a ceiling: hand off.
    Deny {
        /// The agent.
        agent: AgentName,
        /// The session.
        session: BeadId,
        /// The ceilings crossed, in words.
        over: Vec<String>,
        /// Whether the session is recorded as ended over budget already (else the
        /// caller ends it: a wall-time ceiling is crossed by no turn).
        ended: bool,
    },
}

/// Whether the session running in this worktree may go on: reads the worktree's binding
/// and the session's local ledger, nothing else (never the store's tree or its index),
/// so that it is cheap enough to run before every tool call.
pub fn guard(store: &Store) -> Result<Verdict> {
    let Some((agent, id)) = binding(store)?.and_then(|b| Some((b.agent, b.session?))) else {
        return Ok(Verdict::Allow);
    };
    let ledger = Ledger::read(store, &id)?;
    match ledger.ended() {
        Some((EndReason::Budget, over)) => {
            return Ok(Verdict::Deny {
                agent,
                session: id,
                over: over.to_vec(),
                ended: true,
            });
        }
        Some(_) => return Ok(Verdict::Allow),
        None => {}
    }
    let over = ledger.overruns(now());
    if over.is_empty() {
        return Ok(Verdict::Allow);
    }
    Ok(Verdict::Deny {
        agent,
        session: id,
        over,
        ended: false,
    })
}

/// Ends `actor`'s running session as `budget`, folding in its local turns, for the
/// ceilings `over` it crossed.
pub fn end_over_budget(store: &Store, actor: &Actor, over: Vec<String>) -> Result<Session> {
    let id = actor
        .session
        .clone()
        .ok_or_else(|| SessionError::NoneRunning(actor.id.clone()))?;
    let _lock = store.lock_ledger(&id)?;
    let u = Unflushed::of(store, &id)?;
    fold(store, actor, &id, &u, Some(over))
}

/// A per-turn ceiling above which starting fresh is cheaper (`beads.freshAfter`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FreshAfter {
    /// Tokens per turn.
    Tokens(u64),
    /// Dollars per turn.
    Spend(f64),
}

impl FreshAfter {
    /// Parses `200k`, `1m` or `150000` (tokens), or `$0.50` (dollars).
    pub fn parse(v: &str) -> Option<FreshAfter> {
        let v = v.trim().to_ascii_lowercase();
        if let Some(d) = v.strip_prefix('$') {
            return d
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .map(FreshAfter::Spend);
        }
        let (num, mult) = match v.strip_suffix('k') {
            Some(n) => (n, 1_000),
            None => match v.strip_suffix('m') {
                Some(n) => (n, 1_000_000),
                None => (v.as_str(), 1),
            },
        };
        num.parse::<u64>()
            .ok()?
            .checked_mul(mult)
            .map(FreshAfter::Tokens)
    }

    fn crossed_by(&self, line: &UsageLine) -> bool {
        match *self {
            FreshAfter::Tokens(t) => line.tokens > t,
            FreshAfter::Spend(d) => line.spend > d,
        }
    }
}

/// The last turn of a session, when it cost more than `beads.freshAfter`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fresh {
    /// The turn.
    pub line: UsageLine,
    /// The ceiling it crossed.
    pub after: FreshAfter,
}

/// Whether the last turn of `s` cost more than `beads.freshAfter`: the signal to hand
/// off and start a fresh session.
pub fn fresh(store: &Store, s: &Session) -> Option<Fresh> {
    let after = FreshAfter::parse(&store.git().config_string(settings::FRESH_AFTER)?)?;
    let line = s.ledger.iter().rev().find(|l| l.turn)?;
    after.crossed_by(line).then(|| Fresh {
        line: line.clone(),
        after,
    })
}

/// Of `mail`, the messages session `id` has not been told of yet, which are noted in its
/// local ledger as told now.
pub(crate) fn tell(
    store: &Store,
    id: &BeadId,
    mail: Vec<crate::store::MailSummary>,
) -> Result<Vec<crate::store::MailSummary>> {
    let ledger = Ledger::read(store, id)?;
    let told = ledger.delivered();
    let new: Vec<_> = mail
        .into_iter()
        .filter(|m| !told.contains(m.id.as_str()))
        .collect();
    if !new.is_empty() {
        store.append_ledger(
            id,
            &[LedgerEntry::Delivered {
                at: now(),
                mail: new.iter().map(|m| m.id.clone()).collect(),
            }],
        )?;
    }
    Ok(new)
}

/// What a harness adds to the context of a new prompt.
#[derive(Clone, Debug)]
pub struct PromptContext {
    /// The session's verdict: a prompt of a session over budget is refused.
    pub verdict: Verdict,
    /// The last turn, when it cost more than `beads.freshAfter`.
    pub fresh: Option<Fresh>,
    /// Unread mail that arrived since the last prompt, each message once (a handoff to
    /// the agent among it).
    pub mail: Vec<crate::store::MailSummary>,
}

/// What the session `actor` runs needs to hear before its next prompt: whether it may
/// go on, whether its last turn cost too much, and the mail that reached it since the
/// last prompt (noted in its local ledger, so that each message is told once).
pub fn prompt_context(store: &Store, actor: &Actor) -> Result<PromptContext> {
    let verdict = guard(store)?;
    let (Some(agent), Some(id)) = (&actor.agent, &actor.session) else {
        return Ok(PromptContext {
            verdict,
            fresh: None,
            mail: Vec::new(),
        });
    };
    let s = with_local(store, load_session(&store.view()?, id)?)?;
    let unread = super::mail::unread(store, agent, usize::MAX)?;
    let mail = tell(store, id, unread.top)?;
    Ok(PromptContext {
        verdict,
        fresh: fresh(store, &s),
        mail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_take_the_longest_prefix() {
        let p = Prices(
            DEFAULT_PRICES
                .iter()
                .map(|(m, p)| ((*m).to_owned(), *p))
                .collect(),
        );
        assert_eq!(p.of("claude-opus-4-5-20251101").map(|p| p.input), Some(5.0));
        assert_eq!(p.of("claude-opus-4-20250514").map(|p| p.input), Some(15.0));
        assert_eq!(p.of("claude-opus-4-6"), None);
        assert_eq!(p.of("gpt-5.1-codex").map(|p| p.input), Some(1.25));
        assert_eq!(p.of("gpt-5-mini-2025-08-07").map(|p| p.input), Some(0.25));
        assert_eq!(p.of("gemini-2.5-flash-lite").map(|p| p.input), Some(0.1));
        assert_eq!(p.of("mistral-large"), None);
    }

    #[test]
    fn fresh_after_reads_tokens_and_dollars() {
        assert_eq!(FreshAfter::parse("200k"), Some(FreshAfter::Tokens(200_000)));
        assert_eq!(FreshAfter::parse("$0.5"), Some(FreshAfter::Spend(0.5)));
        assert_eq!(FreshAfter::parse("lots"), None);
    }

    #[test]
    fn fnv_is_stable() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
