//! bd's `batch`: a list of writes (close, update, create, dep add, dep remove) made
//! in one transaction, so one commit, or, when one of them fails, none at all.

use super::beads::{
    Closing, NewBead, change_each_in, closing, depend_in, new_bead, set_status, undepend_in,
};
use super::{BeadError, OpError, Result, permit, write};
use crate::model::{Actor, BeadId, BeadType, Capability, DepKind, DepTarget, Status};
use crate::store::{Store, Tx};

/// One write of a batch.
#[derive(Clone, Debug)]
pub enum BatchOp {
    /// Close a bead, with a reason.
    Close {
        /// The bead, as given.
        id: String,
        /// Why.
        reason: String,
    },
    /// Change some of a bead's status, priority, title and assignee.
    Update {
        /// The bead, as given.
        id: String,
        /// New status.
        status: Option<Status>,
        /// New priority.
        priority: Option<u8>,
        /// New title.
        title: Option<String>,
        /// New assignee ("" clears it).
        assignee: Option<String>,
    },
    /// Create a bead.
    Create {
        /// Its type.
        kind: BeadType,
        /// Its priority.
        priority: u8,
        /// Its title.
        title: String,
    },
    /// Make `from` depend on `to`.
    DepAdd {
        /// The bead that depends, as given.
        from: String,
        /// The bead it depends on, as given.
        to: String,
        /// The kind of dependency.
        kind: DepKind,
    },
    /// Remove the dependencies of `from` on `to`.
    DepRemove {
        /// The bead that depends, as given.
        from: String,
        /// The bead it depends on, as given.
        to: String,
    },
}

impl BatchOp {
    /// bd's name of the operation (`close`, `update`, `create`, `dep.add`,
    /// `dep.remove`).
    pub fn name(&self) -> &'static str {
        match self {
            BatchOp::Close { .. } => "close",
            BatchOp::Update { .. } => "update",
            BatchOp::Create { .. } => "create",
            BatchOp::DepAdd { .. } => "dep.add",
            BatchOp::DepRemove { .. } => "dep.remove",
        }
    }

    /// What the operation needs the actor to be allowed to do.
    fn needs(&self) -> &'static [Capability] {
        match self {
            BatchOp::Close { .. } => &[Capability::Close],
            BatchOp::Update {
                status: Some(Status::Closed),
                ..
            } => &[Capability::Update, Capability::Close],
            BatchOp::Update { .. } | BatchOp::DepAdd { .. } | BatchOp::DepRemove { .. } => {
                &[Capability::Update]
            }
            BatchOp::Create { .. } => &[Capability::Create],
        }
    }
}

/// A line of a batch: where it stands in the input, its text, and its operation.
#[derive(Clone, Debug)]
pub struct BatchLine {
    /// The line's number, from 1.
    pub line: usize,
    /// The line as written (for messages).
    pub text: String,
    /// What it asks for.
    pub op: BatchOp,
}

/// What one line of a batch did: the bead it changed or made (`FROM->TO` for a
/// dependency).
#[derive(Clone, Debug)]
pub struct BatchDone {
    /// The line's number.
    pub line: usize,
    /// bd's name of the operation.
    pub op: &'static str,
    /// What it acted on.
    pub target: String,
}

/// Runs every line of `lines` in one transaction: one commit (with `message` as its
/// subject, when given), or, when a line fails, nothing written and the error naming
/// the line.
pub fn batch(
    store: &Store,
    actor: &Actor,
    lines: &[BatchLine],
    message: Option<&str>,
) -> Result<Vec<BatchDone>> {
    let at = |l: &BatchLine, e: OpError| OpError::Batch {
        line: l.line,
        text: l.text.clone(),
        source: Box::new(e),
    };
    for l in lines {
        for cap in l.op.needs() {
            permit(actor, *cap).map_err(|e| at(l, e))?;
        }
    }
    write(store, actor, |tx| {
        let mut done = Vec::with_capacity(lines.len());
        for l in lines {
            let target = run(store, tx, actor, &l.op).map_err(|e| at(l, e))?;
            done.push(BatchDone {
                line: l.line,
                op: l.op.name(),
                target,
            });
        }
        let subject = match message.map(str::trim).filter(|m| !m.is_empty()) {
            Some(m) => m.to_owned(),
            None => format!("batch: {}", crate::model::count(lines.len(), "operation")),
        };
        let body: Vec<String> = lines
            .iter()
            .map(|l| format!("line {}: {}", l.line, l.text))
            .collect();
        tx.set_message(format!("{subject}\n\n{}", body.join("\n")));
        Ok(done)
    })
}

/// The bead `given` names in the store as the batch found it (see
/// [`super::resolve_id`]): a bead the batch creates has an id no line can know.
fn bead(store: &Store, given: &str) -> Result<BeadId> {
    super::resolve_id(store, given)
}

/// Runs one operation in `tx`; returns what it acted on.
fn run(store: &Store, tx: &mut Tx<'_>, actor: &Actor, op: &BatchOp) -> Result<String> {
    match op {
        BatchOp::Close { id, reason } => {
            let id = bead(store, id)?;
            let how = Closing {
                reason: Some(reason),
                ..Closing::default()
            };
            let ids = std::slice::from_ref(&id);
            change_each_in(store, tx, actor, ids, "close", &mut closing(&how))?;
            Ok(id.to_string())
        }
        BatchOp::Update {
            id,
            status,
            priority,
            title,
            assignee,
        } => {
            if *status == Some(Status::Deleted) {
                return Err(BeadError::DeleteByStatus.into());
            }
            super::config::check_words(tx, &[], status.as_slice())?;
            let id = bead(store, id)?;
            let ids = std::slice::from_ref(&id);
            change_each_in(store, tx, actor, ids, "update", &mut |b| {
                if let Some(s) = *status {
                    set_status(b, s);
                }
                if let Some(p) = *priority {
                    b.priority = p;
                }
                if let Some(t) = title {
                    b.title = t.clone();
                }
                if let Some(a) = assignee {
                    b.assignee = Some(a.clone()).filter(|a| !a.is_empty());
                }
                Ok(())
            })?;
            Ok(id.to_string())
        }
        BatchOp::Create {
            kind,
            priority,
            title,
        } => {
            let new = NewBead {
                title: title.clone(),
                kind: Some(*kind),
                priority: Some(*priority),
                ..NewBead::default()
            };
            let b = new_bead(tx, tx, actor, &new)?;
            tx.put_bead(&b)?;
            Ok(b.id.to_string())
        }
        BatchOp::DepAdd { from, to, kind } => {
            let (from, to) = (bead(store, from)?, bead(store, to)?);
            if from == to {
                return Err(BeadError::SelfDependency(from).into());
            }
            let on = DepTarget::Bead(to.clone());
            depend_in(tx, None, actor, (&from, &on, *kind))?;
            Ok(format!("{from}->{to}"))
        }
        BatchOp::DepRemove { from, to } => {
            let (from, to) = (bead(store, from)?, bead(store, to)?);
            undepend_in(tx, actor, &from, &DepTarget::Bead(to.clone()), None)?;
            Ok(format!("{from}->{to}"))
        }
    }
}
