//! `verify`: whether each commit of the store was signed by a key that could act as
//! its author at that point of history, and the allowed-signers file that lets git
//! check the same signatures.
//!
//! A commit's author is the actor its `Beads-Actor:` trailer names. An agent's keys
//! are read from its document at the commit's first parent (the state the change
//! was made on): the signing key must be one of them and not retired there, the
//! agent must exist and not be retired, the key must be endorsed by its creator (a
//! person git trusts, or a key of its parent agent), and what the commit changed must
//! be within the agent's authority. A person's key must be one git trusts for them
//! (`user.signingKey`, `gpg.ssh.allowedSignersFile`). A merge made by sync is checked
//! as a commit of the clone's actor; its parents are checked as commits of their own.

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use super::agent::delegated;
use super::molecule::SQUASHED_STEPS_KEY;
use super::{Result, SyncError};
use crate::model::{
    Agent, AgentKey, AgentName, AgentStatus, Authority, Bead, BeadId, Capability, DepKind,
    ENDORSE_NAMESPACE, Session, Status, Trust, endorsement_payload,
};
use crate::store::{Checked, ObjectId, SignedCommit, Store, check_signature, decode_doc, refs};

/// The capabilities a change is judged by (see `Checker::needed`).
const CHECKED: [Capability; 9] = [
    Capability::Create,
    Capability::Update,
    Capability::Claim,
    Capability::Close,
    Capability::Delete,
    Capability::Comment,
    Capability::Sling,
    Capability::Spawn,
    Capability::Mail,
];

/// One commit as `verify` judged it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitCheck {
    /// The commit.
    pub commit: ObjectId,
    /// Who it says acted (its `Beads-Actor:` trailer, else its author's name).
    pub actor: String,
    /// Whether that actor is an agent (else a person).
    pub agent: bool,
    /// Whether it is a merge.
    pub merge: bool,
    /// The key that signed it, if the signature parsed.
    pub signer: Option<String>,
    /// The verdict.
    pub verdict: Trust,
    /// Why, when it is not good.
    pub detail: Option<String>,
}

/// What `verify` found, oldest commit first.
#[derive(Clone, Debug, Default)]
pub struct Verification {
    /// Every commit checked.
    pub commits: Vec<CommitCheck>,
    /// Whether every commit must verify (`beads.requireSigned`), or only none may be
    /// forged.
    pub required: bool,
}

impl Verification {
    /// The commits that did not verify.
    pub fn failures(&self) -> impl Iterator<Item = &CommitCheck> {
        self.commits.iter().filter(|c| c.verdict != Trust::Good)
    }

    /// The commits that fail the check: the forged or over-reaching ones, and with
    /// `beads.requireSigned` every one that does not verify.
    pub fn refused(&self) -> impl Iterator<Item = &CommitCheck> {
        (self.failures()).filter(|c| self.required || c.verdict.is_forged())
    }

    /// How many commits have verdict `verdict`.
    pub fn count(&self, verdict: Trust) -> usize {
        self.commits.iter().filter(|c| c.verdict == verdict).count()
    }
}

/// Verifies the commits of `range` (`A..B`, or one revision and all it reaches;
/// default `refs/beads/main`), oldest first.
pub fn verify(store: &Store, range: Option<&str>) -> Result<Verification> {
    let range = range.unwrap_or(refs::MAIN.as_str());
    let (hidden, tip) = match range.split_once("..") {
        Some((from, to)) => (
            Some(store.git().resolve_commit(from)?),
            if to.is_empty() {
                refs::MAIN.as_str()
            } else {
                to
            },
        ),
        None => (None, range),
    };
    let tip = store.git().resolve_commit(tip)?;
    let mut found = verify_commits(store, tip, hidden)?;
    found.required = store.git().config_bool(crate::settings::REQUIRE_SIGNED) == Some(true);
    Ok(found)
}

/// Verifies the commits `tip` reaches and `hidden` does not.
pub(crate) fn verify_commits(
    store: &Store,
    tip: ObjectId,
    hidden: Option<ObjectId>,
) -> Result<Verification> {
    // Each commit's trees are read again as the next commit's base.
    let store = &store.caching(4 << 20);
    let mut checker = Checker::new(store)?;
    let mut out = Verification::default();
    for id in store.commits_between(tip, hidden)? {
        out.commits.push(checker.check(id)?);
    }
    Ok(out)
}

/// Fails with [`SyncError::Unverified`] unless every commit that `theirs` brings and
/// `ours` does not have verifies (`beads.requireSigned`).
pub(crate) fn require_verified(
    store: &Store,
    remote: &str,
    ours: Option<ObjectId>,
    theirs: ObjectId,
) -> Result<()> {
    let found = verify_commits(store, theirs, ours)?;
    let failed: Vec<(ObjectId, Trust)> = found.failures().map(|c| (c.commit, c.verdict)).collect();
    if failed.is_empty() {
        return Ok(());
    }
    Err(SyncError::Unverified {
        remote: remote.to_owned(),
        commits: failed,
    }
    .into())
}

/// git's allowed-signers file for the store's actors: every key of every agent at the
/// head of the store (with the span it was current, as `valid-after` and
/// `valid-before`), and the people git trusts here.
pub fn allowed_signers(store: &Store) -> Result<String> {
    let head = store.require_head()?;
    let mut lines = BTreeSet::new();
    for (principal, key) in store.trusted_people()? {
        lines.insert(format!("{principal} namespaces=\"git\" {key}"));
    }
    for (path, _) in store.list_docs(head.tree, refs::AGENTS_DIR)? {
        let Ok(Some(agent)) = store.read_doc::<Agent>(head.tree, &path) else {
            continue;
        };
        let principal = crate::model::Actor::agent(&agent.name, None, Authority::default()).email;
        for k in &agent.keys {
            let Some(key) = crate::store::normalize_public_key(&k.key) else {
                continue;
            };
            let mut options = format!(
                "namespaces=\"git\",valid-after=\"{}\"",
                k.since.format("%Y%m%d%H%M%SZ")
            );
            // git dates a commit to the second: a commit made in the second the key
            // was retired, before it was, is still the key's.
            if let Some(until) = k.retired_at {
                let until = until
                    .checked_add_signed(chrono::TimeDelta::seconds(1))
                    .unwrap_or(until);
                options.push_str(&format!(
                    ",valid-before=\"{}\"",
                    until.format("%Y%m%d%H%M%SZ")
                ));
            }
            lines.insert(format!("{principal} {options} {key}"));
        }
    }
    Ok(lines.into_iter().map(|l| l + "\n").collect())
}

/// What is known about an agent at one state of the store (cached by its document's
/// blob: most commits see the same documents as the one before).
struct AgentAt {
    agent: Agent,
    /// Its keys whose endorsement holds, by key.
    endorsed: HashMap<String, bool>,
}

struct Checker<'s> {
    store: &'s Store,
    people: Vec<(String, String)>,
    agents: HashMap<ObjectId, Rc<AgentAt>>,
    trees: HashMap<ObjectId, ObjectId>,
}

impl<'s> Checker<'s> {
    fn new(store: &'s Store) -> Result<Checker<'s>> {
        Ok(Checker {
            store,
            people: store.trusted_people()?,
            agents: HashMap::new(),
            trees: HashMap::new(),
        })
    }

    fn tree_of(&mut self, commit: ObjectId) -> Result<ObjectId> {
        if let Some(t) = self.trees.get(&commit) {
            return Ok(*t);
        }
        let tree = self.store.commit_tree(commit)?;
        self.trees.insert(commit, tree);
        Ok(tree)
    }

    /// Agent `name` as its document stands in `tree`, if there is one that parses.
    fn agent_at(&mut self, tree: ObjectId, name: &AgentName) -> Result<Option<Rc<AgentAt>>> {
        let path = refs::agent_path(name);
        let Some(blob) = self.store.blob_at(tree, &path)? else {
            return Ok(None);
        };
        if let Some(found) = self.agents.get(&blob) {
            return Ok(Some(found.clone()));
        }
        let Ok(agent) = decode_doc::<Agent>(&path, &self.store.read_blob(blob)?) else {
            return Ok(None);
        };
        let mut endorsed = HashMap::new();
        for k in &agent.keys {
            let ok = self.endorsement_holds(tree, &agent, k)?;
            endorsed.insert(normal(&k.key), ok);
        }
        let found = Rc::new(AgentAt { agent, endorsed });
        self.agents.insert(blob, found.clone());
        Ok(Some(found))
    }

    /// Whether key `k` of `agent` is endorsed by a key that could give it: one of its
    /// parent's keys, or for a top-level agent a key git trusts for a person.
    fn endorsement_holds(&mut self, tree: ObjectId, agent: &Agent, k: &AgentKey) -> Result<bool> {
        let (Some(by), Some(sig)) = (&k.endorser_key, &k.endorsement) else {
            return Ok(false);
        };
        let by = normal(by);
        match check_signature(
            ENDORSE_NAMESPACE,
            &endorsement_payload(&agent.name, &k.key),
            sig,
        ) {
            Checked::Good(signer) if signer == by => {}
            _ => return Ok(false),
        }
        if self.people.iter().any(|(_, key)| *key == by) {
            return Ok(true);
        }
        let Some(parent) = &agent.parent else {
            return Ok(false);
        };
        Ok(match self.agent_at(tree, parent)? {
            Some(p) => p.agent.keys.iter().any(|pk| normal(&pk.key) == by),
            None => false,
        })
    }

    fn check(&mut self, id: ObjectId) -> Result<CommitCheck> {
        let c = self.store.signed_commit(id)?;
        let actor = trailer(&c.message, "Beads-Actor").unwrap_or_else(|| c.author.clone());
        let context = match c.parents.first() {
            Some(p) => Some(self.tree_of(*p)?),
            None => None,
        };
        self.trees.insert(id, c.tree);
        let agent = match (AgentName::parse(&actor), context) {
            (Ok(name), Some(tree)) => self.agent_at(tree, &name)?,
            _ => None,
        };
        let mut check = CommitCheck {
            commit: id,
            actor,
            agent: agent.is_some(),
            merge: c.parents.len() > 1,
            signer: None,
            verdict: Trust::Good,
            detail: None,
        };
        let (verdict, detail) = match &c.signature {
            Checked::Unsigned => (Trust::Unsigned, None),
            Checked::Foreign(format) => (
                Trust::Unchecked,
                Some(format!("signed with {format}: git verify-commit checks it")),
            ),
            Checked::Bad(why) => (Trust::Bad, Some(why.clone())),
            Checked::Good(key) => {
                check.signer = Some(key.clone());
                match (&agent, context) {
                    (Some(agent), Some(tree)) => self.judge_agent(&c, agent, key, tree)?,
                    _ => self.judge_person(&c, key),
                }
            }
        };
        check.verdict = verdict;
        check.detail = detail;
        Ok(check)
    }

    fn judge_person(&self, c: &SignedCommit, key: &str) -> (Trust, Option<String>) {
        let trusted = self
            .people
            .iter()
            .any(|(who, k)| k == key && who.eq_ignore_ascii_case(&c.email));
        if trusted {
            (Trust::Good, None)
        } else {
            (
                Trust::UnknownKey,
                Some(format!("the key is not one trusted for {}", c.email)),
            )
        }
    }

    fn judge_agent(
        &mut self,
        c: &SignedCommit,
        at: &AgentAt,
        key: &str,
        tree: ObjectId,
    ) -> Result<(Trust, Option<String>)> {
        let agent = &at.agent;
        let Some(entry) = agent.keys.iter().find(|k| normal(&k.key) == key) else {
            return Ok((
                Trust::UnknownKey,
                Some(format!("the key is not one of agent {}", agent.name)),
            ));
        };
        if let Some(when) = entry.retired_at {
            return Ok((
                Trust::RotatedOut,
                Some(format!("agent {} retired this key at {when}", agent.name)),
            ));
        }
        if agent.status == AgentStatus::Retired {
            return Ok((
                Trust::Retired,
                Some(format!("agent {} was retired", agent.name)),
            ));
        }
        // A key nobody endorsed (its creator had no key) is not a forged one: the
        // change is still judged, and the verdict says the key is unvouched for.
        let vouched = if entry.endorsement.is_none() {
            (
                Trust::Unendorsed,
                Some(format!(
                    "agent {}'s key was endorsed by nobody ({} had no signing key)",
                    agent.name, entry.endorsed_by
                )),
            )
        } else if at.endorsed.get(key) != Some(&true) {
            return Ok((
                Trust::UnknownKey,
                Some(format!(
                    "the key of agent {} is not endorsed by its creator",
                    agent.name
                )),
            ));
        } else {
            (Trust::Good, None)
        };
        if c.parents.len() > 1 {
            return Ok(vouched);
        }
        let authority = self.authority(c, agent, tree)?;
        // An authority holding every capability a change can be judged by needs no
        // look at the change (a tree diff and the documents it touched).
        if CHECKED
            .iter()
            .all(|cap| authority.capabilities.contains(cap))
        {
            return Ok(vouched);
        }
        let lacking = self
            .needed(tree, c.tree, agent.name.as_str())?
            .into_iter()
            .find(|need| !need.iter().any(|cap| authority.capabilities.contains(cap)));
        Ok(match lacking.and_then(|need| need.first()) {
            Some(cap) => (
                Trust::OverReaching,
                Some(format!("agent {} may not {cap}", agent.name)),
            ),
            None => vouched,
        })
    }

    /// The authority the agent acted under: its session's (when the commit names one
    /// that ran), else its own, narrowed by its delegation chain.
    fn authority(&mut self, c: &SignedCommit, agent: &Agent, tree: ObjectId) -> Result<Authority> {
        let session = trailer(&c.message, "Beads-Session")
            .and_then(|s| BeadId::parse(&s).ok())
            .map(|id| {
                self.store
                    .read_doc::<Session>(tree, &refs::session_path(&id))
            })
            .transpose()
            .ok()
            .flatten()
            .flatten();
        let own = session
            .map(|s| s.authority)
            .unwrap_or_else(|| agent.authority.clone());
        let store = self.store;
        delegated(
            |n| Ok(store.read_doc(tree, &refs::agent_path(n))?),
            agent,
            &own,
        )
    }

    /// What a change from `old` to `new` by `actor` needs (see [`bead_needs`]):
    /// creating agents and sending mail besides what the beads changed need. A
    /// molecule squashed in the change makes its steps' tombstones part of the squash.
    fn needed(&self, old: ObjectId, new: ObjectId, actor: &str) -> Result<Vec<Need>> {
        /// One changed document: a bead before and after, or what else it needs.
        enum Changed {
            Bead(Box<(Option<Bead>, Option<Bead>)>),
            Other(Need),
        }
        let mut changed = Vec::new();
        for change in self.store.diff(Some(old), Some(new))? {
            if refs::bead_id_of_path(&change.path).is_some() {
                let before = self.bead(&change.path, change.old);
                let after = self.bead(&change.path, change.new);
                changed.push(Changed::Bead(Box::new((before, after))));
            } else if change.old.is_none() && change.path.starts_with(refs::AGENTS_DIR) {
                changed.push(Changed::Other(&[Capability::Spawn]));
            } else if change.old.is_none() && change.path.starts_with(refs::MAIL_DIR) {
                changed.push(Changed::Other(&[Capability::Mail]));
            }
        }
        let squashed: BTreeSet<&str> = (changed.iter())
            .filter_map(|c| match c {
                Changed::Bead(pair) => match &**pair {
                    (was, Some(is)) if squashes(was.as_ref(), is) => Some(is.id.as_str()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        for c in &changed {
            match c {
                Changed::Bead(pair) => {
                    let (was, is) = &**pair;
                    out.extend(bead_needs(was.as_ref(), is.as_ref(), actor, &squashed));
                }
                Changed::Other(need) => out.push(*need),
            }
        }
        Ok(out)
    }

    fn bead(&self, path: &str, blob: Option<ObjectId>) -> Option<Bead> {
        let bytes = self.store.read_blob(blob?).ok()?;
        decode_doc::<Bead>(path, &bytes).ok()
    }
}

/// What one change needs: any one of these capabilities, the first being the one a
/// verdict names. Several commands can make the same change (a claim is also what
/// `update` writes when asked for status `in_progress` and the actor as assignee), and
/// a change any of them could make is within an authority holding one of them.
type Need = &'static [Capability];

/// The capabilities the change of one bead document from `was` to `is` (each absent
/// when the document was, or is, not there) needs when `actor` made it: creating
/// it, deleting it, closing or reopening it, claiming, hooking or releasing it,
/// changing its other fields, commenting on it. What only a merge or the store's
/// bookkeeping changes (times, who changed it last, `conflicts`) needs nothing.
fn bead_needs(
    was: Option<&Bead>,
    is: Option<&Bead>,
    actor: &str,
    squashed: &BTreeSet<&str>,
) -> Vec<Need> {
    use Capability::{Claim, Close, Comment, Create, Delete, Sling, Update};
    let Some(is) = is else {
        return Vec::new();
    };
    let Some(was) = was else {
        return if is.status == Status::Deleted {
            vec![&[Create], &[Delete]]
        } else {
            vec![&[Create]]
        };
    };
    let mut out: Vec<Need> = Vec::new();
    // `mol squash` (which needs `close`) rewrites a finished molecule's description
    // and marks it squashed: judged as the rest of the change is, without those two.
    let summary;
    let was = if squashes(Some(was), is) {
        out.push(&[Close]);
        let mut before = was.clone();
        before.description.clone_from(&is.description);
        let mark = is.extra.get_key_value(SQUASHED_STEPS_KEY);
        before
            .extra
            .extend(mark.map(|(k, v)| (k.clone(), v.clone())));
        summary = before;
        &summary
    } else {
        was
    };
    let deleted = |b: &Bead| b.status == Status::Deleted;
    let closed = |b: &Bead| b.status == Status::Closed;
    let held = matches!(was.status, Status::InProgress | Status::Hooked);
    let released = held && is.status == Status::Open && is.assignee.is_none();
    let reopened = closed(was) && !closed(is);
    if deleted(was) != deleted(is) {
        // A squash tombstones the molecule's steps, so that the squash syncs.
        let squash = deleted(is)
            && (is.dependencies.iter())
                .any(|d| d.kind == DepKind::ParentChild && squashed.contains(d.id.as_str()));
        out.push(if squash { &[Close, Delete] } else { &[Delete] });
    } else if closed(was) != closed(is) {
        out.push(&[Close]);
        if was.assignee != is.assignee {
            out.push(&[Update]);
        }
    } else if was.status != is.status || was.assignee != is.assignee {
        out.push(match (is.status, is.assignee.as_deref()) {
            (Status::InProgress, Some(a)) if a == actor => &[Claim, Update],
            (Status::Hooked, Some(_)) => &[Sling, Update],
            _ if released => &[Claim, Sling, Update],
            _ => &[Update],
        });
    }
    let edited = was.title != is.title
        || was.priority != is.priority
        || was.kind != is.kind
        || was.labels != is.labels
        || was.dependencies != is.dependencies
        || was.description != is.description
        || was.notes != is.notes
        || was.extra != is.extra
        || (closed(was) == closed(is) && was.close_reason != is.close_reason);
    if edited {
        out.push(&[Update]);
    }
    if is
        .comments
        .iter()
        .any(|c| !was.comments.iter().any(|w| w.id == c.id))
    {
        // Reopening with a reason and releasing add a comment of their own.
        out.push(if reopened {
            &[Comment, Close]
        } else if released {
            &[Comment, Claim]
        } else {
            &[Comment]
        });
    }
    out
}

/// Whether `is` is a molecule that this change squashed (see
/// [`super::molecule::squash`]): marked squashed now, and not before.
fn squashes(was: Option<&Bead>, is: &Bead) -> bool {
    is.extra.contains_key(SQUASHED_STEPS_KEY)
        && was.is_some_and(|was| !was.extra.contains_key(SQUASHED_STEPS_KEY))
}

/// A public key as compared: type and data, no comment.
fn normal(key: &str) -> String {
    crate::store::normalize_public_key(key).unwrap_or_else(|| key.trim().to_owned())
}

/// The value of the last trailer `name` in `message`.
fn trailer(message: &str, name: &str) -> Option<String> {
    message
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .map(|v| v.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Comment;
    use Capability::{Claim, Close, Comment as CommentOn, Create, Delete, Sling, Update};

    fn bead() -> Bead {
        let id = BeadId::parse("bd-a1").expect("an id");
        Bead::new(id, "a bead".into(), "lead", chrono::Utc::now())
    }

    fn needs(was: &Bead, is: &Bead) -> Vec<Need> {
        bead_needs(Some(was), Some(is), "nux", &BTreeSet::new())
    }

    fn comment(b: &mut Bead, id: &str) {
        b.comments.push(Comment {
            id: id.into(),
            author: "nux".into(),
            created_at: chrono::Utc::now(),
            text: "a word".into(),
        });
    }

    #[test]
    fn each_change_of_a_bead_needs_what_the_commands_that_make_it_need() {
        let open = bead();
        assert_eq!(
            bead_needs(None, Some(&open), "nux", &BTreeSet::new()),
            [&[Create][..]]
        );
        let mut claimed = open.clone();
        claimed.status = Status::InProgress;
        claimed.assignee = Some("nux".into());
        assert_eq!(needs(&open, &claimed), [&[Claim, Update][..]]);
        // Made in progress for someone else: only `update` does that.
        let mut given = claimed.clone();
        given.assignee = Some("rig".into());
        assert_eq!(needs(&open, &given), [&[Update][..]]);
        let mut hooked = open.clone();
        hooked.status = Status::Hooked;
        hooked.assignee = Some("rig".into());
        assert_eq!(needs(&open, &hooked), [&[Sling, Update][..]]);
        // A release puts it back and says so in a comment.
        let mut released = open.clone();
        comment(&mut released, "c1");
        assert_eq!(
            needs(&claimed, &released),
            [&[Claim, Sling, Update][..], &[CommentOn, Claim][..]]
        );
        let mut closed = claimed.clone();
        closed.status = Status::Closed;
        closed.close_reason = Some("done".into());
        assert_eq!(needs(&claimed, &closed), [&[Close][..]]);
        // Reopened with a reason, which goes into a comment.
        let mut reopened = claimed.clone();
        comment(&mut reopened, "c2");
        assert_eq!(
            needs(&closed, &reopened),
            [&[Close][..], &[CommentOn, Close][..]]
        );
        let mut noted = open.clone();
        comment(&mut noted, "c3");
        assert_eq!(needs(&open, &noted), [&[CommentOn][..]]);
        let mut retitled = open.clone();
        retitled.title = "another".into();
        retitled.updated_by = "nux".into();
        assert_eq!(needs(&open, &retitled), [&[Update][..]]);
        let mut gone = open.clone();
        gone.status = Status::Deleted;
        assert_eq!(needs(&open, &gone), [&[Delete][..]]);
        // Only the store's bookkeeping, or a merge's conflicts, changed.
        let mut touched = open.clone();
        touched.updated_by = "nux".into();
        assert!(needs(&open, &touched).is_empty());
    }

    #[test]
    fn a_squash_needs_close_and_only_its_own_changes_pass_as_it() {
        let mol = bead();
        let mut step = Bead::new(
            BeadId::parse("bd-a1.1").expect("an id"),
            "a step".into(),
            "lead",
            chrono::Utc::now(),
        );
        step.add_dependency(crate::model::Dependency {
            id: mol.id.clone(),
            kind: DepKind::ParentChild,
        });
        step.status = Status::Closed;
        let mut summary = mol.clone();
        summary.status = Status::Closed;
        summary.description = "all 1 step done".into();
        summary.extra.insert(SQUASHED_STEPS_KEY.into(), 1.into());
        let mut tombstone = step.clone();
        tombstone.status = Status::Deleted;
        let squashed = BTreeSet::from([mol.id.as_str()]);
        let judged = |was: &Bead, is: &Bead| bead_needs(Some(was), Some(is), "nux", &squashed);
        assert_eq!(judged(&mol, &summary), [&[Close][..], &[Close][..]]);
        assert_eq!(judged(&step, &tombstone), [&[Close, Delete][..]]);
        // Already closed, the molecule's squash still needs `close`.
        let mut closed = mol.clone();
        closed.status = Status::Closed;
        assert_eq!(judged(&closed, &summary), [&[Close][..]]);
        // Anything else the change does is judged as it would be on its own.
        let mut retitled = summary.clone();
        retitled.title = "another".into();
        assert_eq!(judged(&closed, &retitled), [&[Close][..], &[Update][..]]);
        let mut other = bead();
        other.id = BeadId::parse("bd-b2").expect("an id");
        let mut gone = other.clone();
        gone.status = Status::Deleted;
        assert_eq!(judged(&other, &gone), [&[Delete][..]]);
        // Without the squash in the same change, a step's tombstone is a delete.
        assert_eq!(needs(&step, &tombstone), [&[Delete][..]]);
    }
}
