//! `git beads edit ID [--title|--description|--design|--notes|--acceptance]`: opens
//! `$EDITOR` on one text field of a bead (the description by default) and writes what
//! was saved as one commit; nothing when it is unchanged, or when the field changed
//! in the store while the editor was open (what was saved is then kept for the next
//! edit).

use std::path::PathBuf;
use std::process::Command;

use crate::cli::{
    Ctx,
    error::{CliError, Kind},
    output::Out,
};
use crate::ops::{self, TextField};
use crate::wire;

/// Arguments of `edit`.
#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("field").multiple(false)))]
pub struct Args {
    /// The bead (an id without its prefix will do where it is unambiguous).
    pub id: String,
    /// Edit the title.
    #[arg(long, group = "field")]
    pub title: bool,
    /// Edit the description (the default).
    #[arg(long, group = "field")]
    pub description: bool,
    /// Edit the design notes.
    #[arg(long, group = "field")]
    pub design: bool,
    /// Edit the working notes.
    #[arg(long, group = "field")]
    pub notes: bool,
    /// Edit the acceptance criteria.
    #[arg(long, group = "field")]
    pub acceptance: bool,
}

impl Args {
    fn field(&self) -> TextField {
        [
            (self.title, TextField::Title),
            (self.design, TextField::Design),
            (self.notes, TextField::Notes),
            (self.acceptance, TextField::Acceptance),
        ]
        .into_iter()
        .find_map(|(asked, f)| asked.then_some(f))
        .unwrap_or(TextField::Description)
    }
}

/// Runs `edit`: `$EDITOR` (else `$VISUAL`, else `vi`) on a file under the git dir that
/// holds the field's text, run through `sh` as git runs its editor.
pub fn run(ctx: &Ctx, args: Args, out: &mut Out) -> Result<(), CliError> {
    let actor = ctx.actor()?;
    let id = super::resolve_id(ctx, &args.id)?;
    let field = args.field();
    let bead = ops::show(&ctx.store, std::slice::from_ref(&id))?.remove(0);
    let dir = ctx.store.common_dir().join("beads-edit");
    std::fs::create_dir_all(&dir)?;
    let path: PathBuf = dir.join(format!("{id}.{}.md", field.name()));
    let was = field.of(&bead);
    // A file left by an edit the store moved under holds what was typed: the editor
    // starts from it.
    if !path.is_file() {
        std::fs::write(&path, &was)
            .map_err(|e| CliError::user(format!("cannot write {}: {e}", path.display())))?;
    }
    let edited = edit_file(&path).and_then(|()| {
        std::fs::read_to_string(&path)
            .map_err(|e| CliError::user(format!("cannot read {}: {e}", path.display())))
    });
    let outcome = edited.and_then(|text| {
        ops::edit_text(&ctx.store, &actor, &id, field, (&was, &text)).map_err(|e| {
            // What was typed is kept for another try when the store moved under it.
            let e = CliError::from(e);
            match e.kind {
                Kind::Conflict => e.hint(format!(
                    "nothing was written; what you saved is kept in {}, and the next \
                     `git beads edit` of it starts from there",
                    path.display()
                )),
                _ => e,
            }
        })
    });
    // The file is scratch: gone unless it holds what a conflict left unwritten.
    if !matches!(&outcome, Err(e) if e.kind == Kind::Conflict) {
        let _ = std::fs::remove_file(&path);
    }
    let ops::Edited { bead, changed } = outcome?;
    if out.json {
        return out.json(&wire::OneBead {
            bead: wire::Bead::plain(&bead),
        });
    }
    if changed {
        out.note(format!("{id}: {} updated", field.name()));
    } else {
        out.note(format!("{id}: {} unchanged", field.name()));
    }
    Ok(())
}

/// Runs the user's editor on `path` and waits for it.
fn edit_file(path: &std::path::Path) -> Result<(), CliError> {
    let editor = ["EDITOR", "VISUAL"]
        .into_iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_owned());
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$@\""))
        .arg(&editor)
        .arg(path)
        .status()
        .map_err(|e| CliError::user(format!("cannot run the editor {editor:?}: {e}")))?;
    if !status.success() {
        return Err(CliError::user(format!(
            "the editor {editor:?} failed ({status}); nothing was changed"
        )));
    }
    Ok(())
}
