//! `git beads mcp`: a Model Context Protocol server over stdio, one process for a
//! whole agent session.
//!
//! The transport is MCP's stdio one: JSON-RPC 2.0 messages, one per line, on stdin
//! and stdout. The server answers `initialize`, `ping`, `tools/list`, `tools/call`,
//! `resources/list`, `resources/templates/list` and `resources/read`, and takes the
//! client's notifications (`notifications/initialized`, `…/cancelled`) without a
//! reply. Every call runs in this process against the store kept open between calls
//! ([`ops::KeptStore`]: objects and refs are read from disk on every call, and the
//! store is opened anew when the packs it may have seen or its configuration change),
//! so a write made by the CLI or another worktree between two calls is seen by the
//! second, and no lock is held between calls. A pure tool reads `refs/beads/main` once
//! per call and the store pinned there ([`ops::Store::pinned_at`]); its last answer
//! (`ready`) is given again to the same call while that ref has not moved. Between calls the
//! server blocks reading stdin and costs nothing; it ends when stdin closes.
//!
//! A bad call never ends the server: a message that is not JSON, an unknown method
//! or tool and arguments that do not fit the tool's schema get JSON-RPC errors; a
//! tool that fails gets a result with `isError` and the failure's `kind`.

mod tools;

use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::rc::Rc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::model::{Actor, AgentName};
use crate::ops;

pub use tools::ToolError;

/// The protocol revisions this server speaks, newest first.
const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The one resource: what `git beads prime` prints.
const PRIME_URI: &str = "beads://prime";

/// The longest message read: a document may hold 16 MiB of text, escaped in JSON.
const MAX_MESSAGE: usize = 4 * ops::MAX_DOCUMENT;

/// JSON-RPC's error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC's code for a failure of the server itself.
const INTERNAL_ERROR: i64 = -32603;
/// MCP's code for a resource that does not exist.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// What the server tells a client about itself when it connects.
const INSTRUCTIONS: &str = "git-beads keeps this repository's work items (beads), agents, \
sessions and mail in git. Start with the prime tool (or the beads://prime resource): who \
you are, the work on your hook, your mail. Take work with ready and claim, record progress \
with comment, finish with close, and pass unfinished work to your next session with handoff.";

/// A JSON-RPC error answer.
#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
        }
    }

    /// An answer that could not be put into JSON (a bug, not the client's fault).
    fn unencodable(e: serde_json::Error) -> RpcError {
        RpcError::new(
            INTERNAL_ERROR,
            format!("the answer could not be encoded: {e}"),
        )
    }
}

/// What one call runs with: the store, who acts as the server was told, and the
/// renderer of the prime text the server was given.
#[derive(Clone)]
pub struct Ctx {
    /// The repository's store.
    pub store: ops::Store,
    /// The agent named by `--as` or `GIT_BEADS_AGENT`.
    pub as_agent: Option<AgentName>,
    /// `--as-person`: act under the git identity whatever is bound.
    pub as_person: bool,
    /// `--actor`: bd's actor name.
    pub actor: Option<String>,
    /// The caller's rendering of the prime text (see [`Server::with_prime`]).
    prime: Option<Rc<PrimeText>>,
}

impl Ctx {
    /// Who this call acts as, as a command given the server's flags would.
    pub fn acting(&self) -> ops::Result<Actor> {
        let who = ops::acting_given(
            &self.store,
            self.actor.as_deref(),
            self.as_agent.as_ref(),
            self.as_person,
        )?;
        Ok(who.actor)
    }
}

/// What `git beads prime` prints for the acting agent, as a harness hook shows it:
/// the caller's renderer (the command line's), which the server does not own.
pub type PrimeText = dyn Fn(&Ctx) -> Result<String, PrimeFailed>;

/// Why the prime text could not be rendered.
#[derive(Debug)]
pub struct PrimeFailed {
    /// The kind of failure, in the words of [`ToolError::kind`].
    pub kind: &'static str,
    /// What failed.
    pub message: String,
}

/// The server: where the store is and who acts, as the command line gave them.
pub struct Server {
    dir: PathBuf,
    as_agent: Option<AgentName>,
    as_person: bool,
    actor: Option<String>,
    /// The caller's rendering of the prime text.
    prime: Option<Rc<PrimeText>>,
    /// The store, kept open between calls once a call opened it.
    store: RefCell<Option<ops::KeptStore>>,
    /// The last answer of a pure tool (see [`tools::Tool::pure`]).
    kept: RefCell<Option<Kept>>,
}

/// An answer kept for the same call while the store's head stays where it was.
struct Kept {
    tool: &'static str,
    args: String,
    head: String,
    answer: Rc<tools::Answer>,
}

impl Server {
    /// A server for the repository at `dir`, acting as the CLI's `--as`,
    /// `--as-person` and `--actor` say (unset: `GIT_BEADS_AGENT`, then the agent
    /// bound to the worktree, then the git identity, as for every command).
    pub fn new(
        dir: PathBuf,
        as_agent: Option<AgentName>,
        as_person: bool,
        actor: Option<String>,
    ) -> Server {
        Server {
            dir,
            as_agent,
            as_person,
            actor,
            prime: None,
            store: RefCell::new(None),
            kept: RefCell::new(None),
        }
    }

    /// This server, answering the prime tool's text and the prime resource with
    /// `prime`'s rendering (without it, they fail).
    pub fn with_prime(self, prime: Box<PrimeText>) -> Server {
        Server {
            prime: Some(Rc::from(prime)),
            ..self
        }
    }

    /// Serves messages from `input` until it ends, writing each answer to `output`
    /// as one line. Only a failure to read or write ends it early.
    pub fn serve(&self, mut input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        let mut line = Vec::new();
        loop {
            line.clear();
            let read = std::io::Read::take(&mut input, MAX_MESSAGE as u64 + 1)
                .read_until(b'\n', &mut line)?;
            if read == 0 {
                return Ok(());
            }
            let answer = if line.len() > MAX_MESSAGE && !line.ends_with(b"\n") {
                skip_line(&mut input)?;
                Some(failure(
                    Value::Null,
                    RpcError::new(
                        INVALID_REQUEST,
                        format!("a message is longer than the {MAX_MESSAGE} byte limit"),
                    ),
                ))
            } else {
                match std::str::from_utf8(&line) {
                    Ok(text) if text.trim().is_empty() => None,
                    Ok(text) => self.answer(text),
                    Err(_) => Some(failure(
                        Value::Null,
                        RpcError::new(PARSE_ERROR, "a message is not UTF-8"),
                    )),
                }
            };
            if let Some(answer) = answer {
                output.write_all(answer.as_bytes())?;
                output.write_all(b"\n")?;
                output.flush()?;
            }
        }
    }

    /// The answer to one message (a line of JSON) as one line of JSON, or `None` for a
    /// notification or a response, which get none.
    pub fn answer(&self, text: &str) -> Option<String> {
        let message: Value = match serde_json::from_str(text) {
            Ok(m) => m,
            Err(e) => {
                return Some(failure(
                    Value::Null,
                    RpcError::new(PARSE_ERROR, format!("not JSON: {e}")),
                ));
            }
        };
        let Some(fields) = message.as_object() else {
            return Some(failure(
                Value::Null,
                RpcError::new(INVALID_REQUEST, "a message must be a JSON-RPC object"),
            ));
        };
        let id = fields.get("id").cloned();
        let Some(method) = fields.get("method").and_then(Value::as_str) else {
            // A response (the server asks the client nothing) is dropped; anything
            // else that names itself by an id is told what is wrong with it.
            let response = fields.contains_key("result") || fields.contains_key("error");
            return id.filter(|_| !response).map(|id| {
                failure(
                    id,
                    RpcError::new(INVALID_REQUEST, "a request must name its method"),
                )
            });
        };
        let id = id?;
        let params = fields.get("params").cloned().unwrap_or_else(|| json!({}));
        let answer = self
            .request(method, &params)
            .map(|result| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#));
        Some(answer.unwrap_or_else(|e| failure(id, e)))
    }

    /// The result of request `method`, as JSON text.
    fn request(&self, method: &str, params: &Value) -> Result<String, RpcError> {
        let value = match method {
            "tools/call" => return self.call(params),
            "initialize" => initialize(params),
            "ping" => json!({}),
            "tools/list" => json!({"tools": tools::list()}),
            "resources/list" => json!({"resources": [{
                "uri": PRIME_URI,
                "name": "prime",
                "title": "What this session needs to know",
                "description": "What `git beads prime` prints: who you are, your hook, \
                    how the last session ended, your unread mail.",
                "mimeType": "text/markdown",
            }]}),
            "resources/templates/list" => json!({"resourceTemplates": []}),
            "resources/read" => self.read(params)?,
            _ => {
                return Err(RpcError::new(
                    METHOD_NOT_FOUND,
                    format!("no method {method:?}"),
                ));
            }
        };
        serde_json::to_string(&value).map_err(RpcError::unencodable)
    }

    /// The context of one call, with the store kept open since the last call unless
    /// what it read at open changed (see [`ops::KeptStore`]).
    fn context(&self) -> Result<Ctx, ToolError> {
        let mut kept = self.store.borrow_mut();
        let store = match &mut *kept {
            Some(kept) => kept.refreshed(),
            None => ops::KeptStore::open(&self.dir).map(|open| kept.insert(open).store()),
        };
        Ok(Ctx {
            store: store.map_err(ops::OpError::from)?.clone(),
            as_agent: self.as_agent.clone(),
            as_person: self.as_person,
            actor: self.actor.clone(),
            prime: self.prime.clone(),
        })
    }

    /// `tools/call`: arguments that do not fit the tool are a JSON-RPC error; a tool
    /// that fails is a result with `isError`.
    fn call(&self, params: &Value) -> Result<String, RpcError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::new(INVALID_PARAMS, "tools/call needs a tool name"))?;
        let tool = tools::find(name)
            .ok_or_else(|| RpcError::new(INVALID_PARAMS, format!("unknown tool {name:?}")))?;
        let empty = serde_json::Map::new();
        let args = match params.get("arguments") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(args)) => args,
            Some(_) => {
                return Err(RpcError::new(
                    INVALID_PARAMS,
                    format!("the arguments of {name} must be an object"),
                ));
            }
        };
        let args = tool
            .check(args)
            .map_err(|e| RpcError::new(INVALID_PARAMS, format!("{name}: {e}")))?;
        // A bug in one call must not end the session the server serves.
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.context().and_then(|ctx| self.run(tool, ctx, &args))
        }));
        let outcome = run.unwrap_or_else(|_| Err(ToolError::Panicked));
        match &outcome {
            Ok(answer) => Ok(tool_result(answer)),
            Err(e) => {
                let message = e.to_string();
                serde_json::to_string(&ToolFailure {
                    content: [Content::text(&format!("{}: {message}", e.kind()))],
                    structured_content: Failure {
                        error: &message,
                        kind: e.kind(),
                    },
                    is_error: true,
                })
                .map_err(RpcError::unencodable)
            }
        }
    }

    /// Runs `tool`. A pure tool's answer is kept, and given again to the same call
    /// while the store's head has not moved: the head is read once on every call, so
    /// an answer is never stale, and the tool reads the store pinned at that head
    /// ([`ops::Store::pinned_at`]), so the answer kept is the one of that head.
    fn run(
        &self,
        tool: &tools::Tool,
        ctx: Ctx,
        args: &tools::Args<'_>,
    ) -> Result<Rc<tools::Answer>, ToolError> {
        if !tool.pure() {
            return tool.run(&ctx, args).map(Rc::new);
        }
        let commit = ctx.store.head_id().map_err(ops::OpError::from)?;
        let key = args.key();
        let head = commit.map(|c| c.to_string()).unwrap_or_default();
        if let Some(kept) = &*self.kept.borrow()
            && (kept.tool, &kept.args, &kept.head) == (tool.name(), &key, &head)
        {
            return Ok(kept.answer.clone());
        }
        let Some(commit) = commit else {
            return tool.run(&ctx, args).map(Rc::new);
        };
        let pinned = Ctx {
            store: ctx.store.pinned_at(commit),
            ..ctx
        };
        let answer = Rc::new(tool.run(&pinned, args)?);
        *self.kept.borrow_mut() = Some(Kept {
            tool: tool.name(),
            args: key,
            head,
            answer: answer.clone(),
        });
        Ok(answer)
    }

    /// `resources/read`: the prime text, as the harness hook shows it.
    fn read(&self, params: &Value) -> Result<Value, RpcError> {
        let uri = params
            .get("uri")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::new(INVALID_PARAMS, "resources/read needs a uri"))?;
        if uri != PRIME_URI {
            return Err(RpcError::new(
                RESOURCE_NOT_FOUND,
                format!("no resource {uri:?}"),
            ));
        }
        let text = self
            .context()
            .and_then(|ctx| tools::prime_text(&ctx))
            .unwrap_or_else(|e| format!("# git-beads\nprime failed ({}): {e}\n", e.kind()));
        Ok(json!({"contents": [{"uri": PRIME_URI, "mimeType": "text/markdown", "text": text}]}))
    }
}

/// `initialize`: the revision asked for when this server speaks it, else its newest.
fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {
            "tools": {"listChanged": false},
            "resources": {"listChanged": false, "subscribe": false},
        },
        "serverInfo": {"name": "git-beads", "version": env!("CARGO_PKG_VERSION")},
        "instructions": INSTRUCTIONS,
    })
}

/// The result of `tools/call` for a tool's `answer`: the document as MCP's structured
/// content, an object (a list goes under `items`), and as the text of its one text
/// block, the document escaped as the answer has it.
fn tool_result(answer: &tools::Answer) -> String {
    let (doc, text) = (&answer.doc, &answer.text);
    let mut out = Vec::with_capacity(doc.len() + text.len() + 96);
    out.extend_from_slice(br#"{"content":[{"type":"text","text":""#);
    out.extend_from_slice(text);
    out.extend_from_slice(br#""}],"structuredContent":"#);
    match doc.starts_with('{') {
        true => out.extend_from_slice(doc.as_bytes()),
        false => {
            out.extend_from_slice(br#"{"items":"#);
            out.extend_from_slice(doc.as_bytes());
            out.push(b'}');
        }
    }
    out.extend_from_slice(br#","isError":false}"#);
    // Escapes are ASCII put between whole characters: the text stays UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The result of `tools/call` for a tool that failed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolFailure<'a> {
    content: [Content<'a>; 1],
    structured_content: Failure<'a>,
    is_error: bool,
}

/// A text block of a tool's result.
#[derive(Serialize)]
struct Content<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

impl Content<'_> {
    fn text(text: &str) -> Content<'_> {
        Content { kind: "text", text }
    }
}

/// A failed tool's structured content: what failed, and its kind.
#[derive(Serialize)]
struct Failure<'a> {
    error: &'a str,
    kind: &'static str,
}

/// A JSON-RPC error answer to request `id`, as one line of JSON.
fn failure(id: Value, e: RpcError) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}}).to_string()
}

/// Reads past the rest of an overlong line, without keeping it.
fn skip_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', chunk) {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = chunk.len();
                input.consume(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire;

    /// The text block is the document, escaped as serde_json would: every character
    /// that JSON escapes, and others that it does not, come back as they were.
    #[test]
    fn a_tool_result_carries_the_document_as_text_and_as_structured_content() {
        let text = "quote \" backslash \\ slash / tab \t newline \n nul \u{0} bell \u{7} \
                    del \u{7f} é ✓ 🐝 \u{2028}";
        for doc in [
            json!({"title": text, "n": [1, 2.5, null, true]}),
            json!([{"id": "bd-1", "title": text}]),
        ] {
            let doc_text = serde_json::to_string(&doc).expect("encodes");
            let answer = tools::Answer::of(doc_text.clone().into());
            let result: Value = serde_json::from_str(&tool_result(&answer)).expect("JSON");
            assert_eq!(
                result["content"][0]["text"],
                Value::String(doc_text.clone())
            );
            assert_eq!(result["content"][0]["type"], "text");
            let structured = &result["structuredContent"];
            assert_eq!(
                if doc.is_array() {
                    &structured["items"]
                } else {
                    structured
                },
                &doc
            );
            assert_eq!(result["isError"], false);
        }
        let mut escaped = Vec::new();
        wire::json_string(&mut escaped, text);
        let back: String = serde_json::from_slice(&escaped).expect("a JSON string");
        assert_eq!(back, text);
    }
}
