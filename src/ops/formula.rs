//! Formulas on disk: finding them in the repository and in the user's folder,
//! reading and checking them.
//!
//! Repository formulas live under `.beads/formulas/` in the worktree (nested
//! folders allowed); user formulas under `$XDG_CONFIG_HOME/git-beads/formulas/`, or
//! `~/.config/git-beads/formulas/` when `XDG_CONFIG_HOME` is unset or not absolute.
//! A repository formula wins over a user formula of the same name.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Result;
use crate::model::{BdFormula, Cooked, Formula, FormulaError, Overlay, Problem};
use crate::settings;
use crate::store::{Store, codec};

/// The folder of repository formulas, relative to the top of the worktree.
pub(crate) const REPO_FORMULAS: &str = ".beads/formulas";

/// Where a formula was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// Under `.beads/formulas/` in the worktree.
    Repository,
    /// In the user's formula folder.
    User,
    /// A file named on the command line.
    File,
}

/// A formula read from a file, with the problems found in it.
#[derive(Clone, Debug, Serialize)]
pub struct FoundFormula {
    /// The formula (its name filled in from the file name when the file has none).
    pub formula: Formula,
    /// The file, as shown to the user (relative to the worktree for repository formulas).
    pub file: String,
    /// The file's path.
    #[serde(skip)]
    pub path: PathBuf,
    /// Where it was found.
    pub origin: Origin,
    /// What is wrong with it; empty when it is valid.
    pub problems: Vec<Problem>,
    /// The formula in bd's language, for a `*.formula.toml` or `*.formula.json` file
    /// (or YAML of that shape); `None` for a git-beads YAML formula.
    #[serde(skip)]
    pub bd: Option<Box<BdFormula>>,
}

impl FoundFormula {
    /// Fails with every problem of the formula, unless it has none.
    pub fn require_valid(&self) -> Result<&Formula> {
        if self.problems.is_empty() {
            return Ok(&self.formula);
        }
        Err(super::FormulaError::NotValid {
            name: self.formula.name.clone(),
            problems: self.problems.clone(),
        }
        .into())
    }
}

/// Every formula that can be poured here, and the files that could not be read.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Catalog {
    /// The formulas by name (repository ones winning), sorted by name.
    pub formulas: Vec<FoundFormula>,
    /// Formulas hidden by one of the same name that wins.
    pub shadowed: Vec<FoundFormula>,
    /// Files that do not parse as formulas, or folders that cannot be read.
    pub unreadable: Vec<Problem>,
    /// The folders searched, in order of precedence.
    pub searched: Vec<String>,
}

/// The user's formula folder: `$XDG_CONFIG_HOME/git-beads/formulas`, or
/// `$HOME/.config/git-beads/formulas` when `XDG_CONFIG_HOME` is unset or relative.
pub(crate) fn user_formula_dir() -> Option<PathBuf> {
    let config = settings::env(settings::XDG_CONFIG_HOME)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            settings::env(settings::HOME)
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(config.join("git-beads").join("formulas"))
}

/// The folders formulas are read from, highest precedence first.
fn formula_dirs(store: &Store) -> Vec<(Origin, PathBuf)> {
    let mut out = Vec::new();
    if let Some(top) = store.workdir() {
        out.push((Origin::Repository, top.join(REPO_FORMULAS)));
    }
    if let Some(user) = user_formula_dir() {
        out.push((Origin::User, user));
    }
    out
}

/// The languages a formula file can be written in, told by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// YAML: git-beads' own formulas, or bd's language (a `formula:` key).
    Yaml,
    /// bd's `*.formula.toml`.
    Toml,
    /// bd's `*.formula.json`.
    Json,
}

/// The syntax of a formula file: `*.yaml` and `*.yml`, bd's `*.formula.toml` and
/// `*.formula.json`; `None` for other files.
fn syntax_of(path: &Path) -> Option<Syntax> {
    let name = path.file_name()?.to_str()?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("yaml" | "yml") => Some(Syntax::Yaml),
        Some("toml") if name.ends_with(".formula.toml") => Some(Syntax::Toml),
        Some("json") if name.ends_with(".formula.json") => Some(Syntax::Json),
        _ => None,
    }
}

fn is_formula_file(path: &Path) -> bool {
    syntax_of(path).is_some()
}

/// Whether a YAML text is written in bd's language (a top-level `formula:` key).
fn is_bd_yaml(source: &str) -> bool {
    source
        .lines()
        .any(|l| l.starts_with("formula:") || l.starts_with("\"formula\":"))
}

/// The name a formula file gives when it has no `name:` (`release.formula.yaml` → `release`).
fn name_from_file(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    stem.strip_suffix(".formula").unwrap_or(&stem).to_owned()
}

/// Whether the file at `path`, one of the worktree's own (below `folder` of the
/// worktree), resolves to a file inside the worktree: a symbolic link in a checkout
/// made by someone else must not make git-beads read, and echo in its errors, a file
/// elsewhere on the machine. A path that does not resolve is left to the read to
/// report.
fn within_worktree(path: &Path, folder: &str) -> bool {
    let Some(top) = path
        .ancestors()
        .find(|a| a.ends_with(folder))
        .and_then(|f| f.parent()?.parent())
    else {
        return true;
    };
    match (path.canonicalize(), top.canonicalize()) {
        (Ok(real), Ok(top)) => real.starts_with(top),
        _ => true,
    }
}

/// What a worktree's formula or overlay that links out of the worktree is told.
const LINKED_OUT: &str =
    "is a symbolic link out of the worktree: a repository's formulas are read only from inside it";

/// Reads one formula file. A file that cannot be read or does not parse is the error,
/// as a located problem; a formula that parses carries its other problems with it.
pub(crate) fn read_formula(
    path: &Path,
    file: &str,
    origin: Origin,
) -> std::result::Result<FoundFormula, Problem> {
    let problem = |message: String| Problem {
        file: file.to_owned(),
        line: None,
        column: None,
        message,
    };
    if origin == Origin::Repository && !within_worktree(path, REPO_FORMULAS) {
        return Err(problem(LINKED_OUT.into()));
    }
    let bytes = std::fs::read(path).map_err(|e| problem(format!("cannot be read: {e}")))?;
    let source = String::from_utf8_lossy(&bytes).into_owned();
    // A file named by its path need not follow the folders' naming: Gas City's
    // `<name>.toml` is TOML, a `.json` JSON.
    let syntax = syntax_of(path).unwrap_or(match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => Syntax::Toml,
        Some("json") => Syntax::Json,
        _ => Syntax::Yaml,
    });
    if syntax != Syntax::Yaml || is_bd_yaml(&source) {
        let parsed = match syntax {
            Syntax::Toml => BdFormula::from_toml(&source),
            Syntax::Json => BdFormula::from_json(&source),
            Syntax::Yaml => codec::decode::<BdFormula>(&bytes).map_err(|e| {
                let (at, message) = e.located();
                FormulaError::Yaml {
                    message,
                    line: at.map(|a| a.0),
                    column: at.map(|a| a.1),
                }
            }),
        };
        let mut bd = parsed.map_err(|e| e.locate(file, &source))?;
        if bd.formula.is_empty() {
            bd.formula = name_from_file(path);
        }
        let problems = bd
            .problems()
            .iter()
            .map(|p| p.locate(file, &source))
            .collect();
        return Ok(FoundFormula {
            formula: bd.summary(),
            file: file.to_owned(),
            path: path.to_owned(),
            origin,
            problems,
            bd: Some(Box::new(bd)),
        });
    }
    let mut formula: Formula = codec::decode(&bytes).map_err(|e| {
        let (at, message) = e.located();
        FormulaError::Yaml {
            message,
            line: at.map(|a| a.0),
            column: at.map(|a| a.1),
        }
        .locate(file, &source)
    })?;
    if formula.name.is_empty() {
        formula.name = name_from_file(path);
    }
    let problems = formula
        .problems()
        .iter()
        .map(|p| p.locate(file, &source))
        .collect();
    Ok(FoundFormula {
        formula,
        file: file.to_owned(),
        path: path.to_owned(),
        origin,
        problems,
        bd: None,
    })
}

/// How a path is shown: relative to the worktree when inside it.
fn shown(store: &Store, path: &Path) -> String {
    store
        .workdir()
        .and_then(|top| path.strip_prefix(top).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Finds and reads every formula: the repository's, then the user's.
pub fn catalog(store: &Store) -> Result<Catalog> {
    let mut cat = Catalog::default();
    let mut by_name: BTreeMap<String, FoundFormula> = BTreeMap::new();
    for (origin, dir) in formula_dirs(store) {
        cat.searched.push(shown(store, &dir));
        if !dir.is_dir() {
            continue;
        }
        let walk = walkdir::WalkDir::new(&dir)
            .follow_links(true)
            .sort_by_file_name();
        let mut here: BTreeMap<String, FoundFormula> = BTreeMap::new();
        for entry in walk {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    cat.unreadable.push(Problem {
                        file: e
                            .path()
                            .map(|p| shown(store, p))
                            .unwrap_or_else(|| shown(store, &dir)),
                        line: None,
                        column: None,
                        message: format!("cannot be read: {e}"),
                    });
                    continue;
                }
            };
            if !entry.file_type().is_file() || !is_formula_file(entry.path()) {
                continue;
            }
            let file = shown(store, entry.path());
            match read_formula(entry.path(), &file, origin) {
                Err(p) => cat.unreadable.push(p),
                Ok(mut f) => match here.get_mut(&f.formula.name) {
                    Some(first) => {
                        // Two files of one folder with one name: neither silently wins.
                        let dup = Problem {
                            file: f.file.clone(),
                            line: None,
                            column: None,
                            message: format!(
                                "formula {} is also defined in {}",
                                f.formula.name, first.file
                            ),
                        };
                        first.problems.push(dup.clone());
                        f.problems.push(dup);
                        cat.shadowed.push(f);
                    }
                    None => {
                        here.insert(f.formula.name.clone(), f);
                    }
                },
            }
        }
        for (name, f) in here {
            match by_name.entry(name) {
                std::collections::btree_map::Entry::Occupied(_) => cat.shadowed.push(f),
                std::collections::btree_map::Entry::Vacant(slot) => {
                    slot.insert(f);
                }
            }
        }
    }
    cat.formulas = by_name.into_values().collect();
    Ok(cat)
}

/// Whether `name` names a file rather than a formula.
fn looks_like_path(name: &str) -> bool {
    name.contains('/')
        || name.contains(std::path::MAIN_SEPARATOR)
        || is_formula_file(Path::new(name))
}

/// The formula called `name` (or the formula file at path `name`), problems and all.
pub fn find_formula(store: &Store, name: &str) -> Result<FoundFormula> {
    if looks_like_path(name) {
        let path = PathBuf::from(name);
        return read_formula(&path, name, Origin::File)
            .map_err(|p| super::FormulaError::File(p).into());
    }
    // The file named after the formula in the folder that wins spares reading every
    // formula; the catalog settles every other case (a name unlike its file's).
    if let Some((origin, dir)) = formula_dirs(store).into_iter().next()
        && let Some(path) = candidate_files(name)
            .into_iter()
            .map(|f| dir.join(f))
            .find(|p| p.is_file())
        && let Ok(f) = read_formula(&path, &shown(store, &path), origin)
        && f.formula.name == name
    {
        return Ok(f);
    }
    let cat = catalog(store)?;
    if let Some(f) = cat.formulas.into_iter().find(|f| f.formula.name == name) {
        return Ok(f);
    }
    Err(super::FormulaError::NotFound {
        name: name.to_owned(),
        searched: cat.searched,
        unreadable: cat.unreadable,
    }
    .into())
}

/// The formula in bd's language (a git-beads YAML formula is translated): borrowed
/// when it was written in it, so that cooking a large one copies nothing.
pub fn as_bd(found: &FoundFormula) -> Cow<'_, BdFormula> {
    match &found.bd {
        Some(bd) => Cow::Borrowed(&**bd),
        None => Cow::Owned(BdFormula::from_formula(&found.formula)),
    }
}

/// The files a formula called `name` may be in, most likely first.
fn candidate_files(name: &str) -> [String; 6] {
    [
        format!("{name}.formula.toml"),
        format!("{name}.formula.json"),
        format!("{name}.formula.yaml"),
        format!("{name}.yaml"),
        format!("{name}.formula.yml"),
        format!("{name}.yml"),
    ]
}

/// Finds the formulas a formula names (parents, expansions, aspects): first beside
/// it, then in the formula folders by file name, then in the whole catalog; each
/// read once.
struct Library<'a> {
    store: &'a Store,
    dirs: Vec<(Origin, PathBuf)>,
    read: std::cell::RefCell<BTreeMap<String, Option<BdFormula>>>,
    catalog: std::cell::OnceCell<Vec<FoundFormula>>,
}

impl<'a> Library<'a> {
    fn new(store: &'a Store, beside: Option<&Path>) -> Library<'a> {
        let mut dirs = Vec::new();
        if let Some(dir) = beside.and_then(Path::parent) {
            dirs.push((Origin::File, dir.to_owned()));
        }
        dirs.extend(formula_dirs(store));
        Library {
            store,
            dirs,
            read: Default::default(),
            catalog: Default::default(),
        }
    }

    fn find(&self, name: &str) -> Option<BdFormula> {
        if let Some(known) = self.read.borrow().get(name) {
            return known.clone();
        }
        let found = self
            .dirs
            .iter()
            .flat_map(|(origin, dir)| {
                candidate_files(name)
                    .into_iter()
                    .map(move |f| (*origin, dir.join(f)))
            })
            .filter(|(_, p)| p.is_file())
            .find_map(|(origin, p)| read_formula(&p, &shown(self.store, &p), origin).ok())
            .filter(|f| f.formula.name == name)
            .or_else(|| {
                self.catalog
                    .get_or_init(|| catalog(self.store).map(|c| c.formulas).unwrap_or_default())
                    .iter()
                    .find(|f| f.formula.name == name)
                    .cloned()
            })
            .map(|f| as_bd(&f).into_owned());
        self.read
            .borrow_mut()
            .insert(name.to_owned(), found.clone());
        found
    }
}

/// The folders of formula overlays, Gas Town's `formula-overlays/` of a rig and of a
/// town: `.beads/formula-overlays/` in the worktree, then `formula-overlays/` beside
/// the user's formula folder.
fn overlay_dirs(store: &Store) -> Vec<(Origin, PathBuf)> {
    let mut out = Vec::new();
    if let Some(top) = store.workdir() {
        out.push((Origin::Repository, top.join(REPO_OVERLAYS)));
    }
    if let Some(user) = user_formula_dir().as_deref().and_then(Path::parent) {
        out.push((Origin::User, user.join("formula-overlays")));
    }
    out
}

/// The folder of repository formula overlays, relative to the top of the worktree.
pub(crate) const REPO_OVERLAYS: &str = ".beads/formula-overlays";

/// The overlay of formula `name`, if there is one, and its file as shown: the
/// repository's `<name>.toml` when it exists (it replaces the user's whole, as a rig's
/// overlay replaces its town's in Gas Town), else the user's.
pub fn find_overlay(store: &Store, name: &str) -> Result<Option<(Overlay, String)>> {
    for (origin, dir) in overlay_dirs(store) {
        if let Some(found) = find_overlay_in(store, &dir, name, origin)? {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// The overlay of formula `name` in folder `dir`, if that folder has one.
fn find_overlay_in(
    store: &Store,
    dir: &Path,
    name: &str,
    origin: Origin,
) -> Result<Option<(Overlay, String)>> {
    let path = dir.join(format!("{name}.toml"));
    if !path.is_file() {
        return Ok(None);
    }
    let file = shown(store, &path);
    let problem = |line, column, message| Problem {
        file: file.clone(),
        line,
        column,
        message,
    };
    if origin == Origin::Repository && !within_worktree(&path, REPO_OVERLAYS) {
        return Err(super::FormulaError::Overlay(problem(None, None, LINKED_OUT.into())).into());
    }
    let source = std::fs::read_to_string(&path)
        .map_err(|e| problem(None, None, format!("cannot be read: {e}")))
        .map_err(super::FormulaError::Overlay)?;
    let overlay = Overlay::from_toml(&source)
        .map_err(|e| e.locate(&file, &source))
        .map_err(super::FormulaError::Overlay)?;
    Ok(Some((overlay, file)))
}

/// Cooks formula `found` with `vars`, its overlay applied (a formula in bd's
/// language): every step a pour would
/// make, writing nothing.
pub fn cook(
    store: &Store,
    found: &FoundFormula,
    vars: &BTreeMap<String, String>,
) -> Result<Cooked> {
    found.require_valid()?;
    let overlay = match found.bd {
        Some(_) => find_overlay(store, &found.formula.name)?,
        None => None,
    };
    let lib = Library::new(store, Some(&found.path));
    crate::model::cook(
        &as_bd(found),
        vars,
        &|n: &str| lib.find(n),
        overlay.as_ref().map(|o| &o.0),
    )
    .map_err(|e| super::FormulaError::Cook(e).into())
}

/// The formula in another syntax: a git-beads YAML formula as itself or in bd's
/// language; a bd formula in TOML, JSON or YAML of bd's shape.
pub fn convert(found: &FoundFormula, to: Syntax) -> Result<String> {
    let bd = as_bd(found);
    let text = match to {
        Syntax::Yaml if found.bd.is_none() => {
            codec::encode(&found.formula).map_err(|e| e.to_string())
        }
        Syntax::Yaml => codec::encode(&bd).map_err(|e| e.to_string()),
        Syntax::Toml => bd.to_toml(),
        Syntax::Json => bd.to_json().map(|t| t + "\n"),
    };
    text.map_err(|message| {
        super::FormulaError::Convert {
            name: found.formula.name.clone(),
            message,
        }
        .into()
    })
}

/// Cooks each bd formula of `formulas` that has no other problem, with a sample
/// value for each required variable, and adds what fails to its problems: what
/// `formula validate` refuses, `formula list` and `show` do not call valid.
pub fn trial_cooks(store: &Store, formulas: &mut [FoundFormula]) {
    for f in formulas.iter_mut() {
        let Some(bd) = &f.bd else { continue };
        if !f.problems.is_empty() {
            continue;
        }
        let lib = Library::new(store, Some(&f.path));
        if let Err(e) = crate::model::trial_cook(bd, &|n: &str| lib.find(n)) {
            let source = std::fs::read_to_string(&f.path).unwrap_or_default();
            f.problems.push(e.locate(&f.file, &source));
        }
    }
}

/// What `formula validate` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Validation {
    /// The files checked.
    pub checked: Vec<String>,
    /// Every problem, file by file.
    pub problems: Vec<Problem>,
}

/// Checks one formula file, or (with `None`) every formula found.
pub fn validate(store: &Store, file: Option<&Path>) -> Result<Validation> {
    let mut v = Validation::default();
    match file {
        Some(path) => {
            let shown = path.display().to_string();
            v.checked.push(shown.clone());
            match read_formula(path, &shown, Origin::File) {
                Ok(f) => {
                    let mut one = [f];
                    trial_cooks(store, &mut one);
                    let [f] = one;
                    v.problems.extend(f.problems);
                }
                Err(p) => v.problems.push(p),
            }
        }
        None => {
            let mut cat = catalog(store)?;
            trial_cooks(store, &mut cat.formulas);
            let mut all: Vec<&FoundFormula> = cat.formulas.iter().chain(&cat.shadowed).collect();
            all.sort_by(|a, b| a.file.cmp(&b.file));
            for f in all {
                v.checked.push(f.file.clone());
                for p in &f.problems {
                    if !v.problems.contains(p) {
                        v.problems.push(p.clone());
                    }
                }
            }
            for p in cat.unreadable {
                if !v.checked.contains(&p.file) {
                    v.checked.push(p.file.clone());
                }
                v.problems.push(p);
            }
            check_overlays(store, &mut v);
        }
    }
    Ok(v)
}

/// Checks every formula overlay file (`<formula>.toml` in an overlay folder).
fn check_overlays(store: &Store, v: &mut Validation) {
    for (origin, dir) in overlay_dirs(store) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        names.sort();
        for n in names {
            let Some(name) = n.strip_suffix(".toml") else {
                continue;
            };
            let file = shown(store, &dir.join(&n));
            v.checked.push(file.clone());
            match find_overlay_in(store, &dir, name, origin) {
                Err(super::OpError::Formula(super::FormulaError::Overlay(p))) => {
                    v.problems.push(p);
                }
                Err(e) => v.problems.push(Problem {
                    file,
                    line: None,
                    column: None,
                    message: e.to_string(),
                }),
                Ok(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FORMULA_EXAMPLE, FORMULA_FORMAT};

    fn parse(text: &str) -> std::result::Result<FoundFormula, Problem> {
        let dir = tempfile::tempdir().map_err(|e| Problem {
            file: "tmp".into(),
            line: None,
            column: None,
            message: e.to_string(),
        })?;
        let path = dir.path().join("t.yaml");
        std::fs::write(&path, text).expect("writes");
        read_formula(&path, "t.yaml", Origin::File)
    }

    #[test]
    fn formula_documented_example_is_valid_and_pours_in_order() {
        assert!(FORMULA_FORMAT.contains(FORMULA_EXAMPLE));
        let f = parse(FORMULA_EXAMPLE).expect("the example parses");
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        let mut given = BTreeMap::new();
        given.insert("crate".to_owned(), "git-beads".to_owned());
        given.insert("version".to_owned(), "1.2.0".to_owned());
        let r = f.formula.render(&given).expect("renders");
        assert_eq!(r.title, "Release git-beads 1.2.0");
        let keys: Vec<&str> = r.steps.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["bump", "changelog", "test", "tag", "announce"]);
        assert_eq!(r.steps[3].needs, [1, 2]);
        assert_eq!(r.steps[4].title, "Announce git-beads 1.2.0 in #releases");
    }

    #[test]
    fn formula_guide_shows_the_documented_example() {
        let guide = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/molecules.md");
        if let Ok(text) = std::fs::read_to_string(guide) {
            assert!(
                text.contains(FORMULA_EXAMPLE),
                "docs/molecules.md's formula example differs from FORMULA_EXAMPLE (src/model/formula.rs)"
            );
        }
    }

    #[test]
    fn formula_yaml_errors_carry_their_line() {
        let p = parse("name: x\nsteps:\n  - id: a\n    title: t\n    need: [b]\n")
            .expect_err("unknown key");
        assert_eq!(p.line, Some(5), "{p}");
        assert!(p.message.contains("unknown field `need`"), "{p}");
        assert!(!p.message.contains("at line"), "{p}");
        let p = parse("name: x\nsteps: [\n").expect_err("malformed");
        assert!(p.line.is_some(), "{p}");
        assert!(p.to_string().starts_with("t.yaml:"), "{p}");
    }

    #[test]
    fn formula_name_defaults_to_the_file_name() {
        assert_eq!(
            name_from_file(Path::new("a/release.formula.yaml")),
            "release"
        );
        assert_eq!(name_from_file(Path::new("deploy.yml")), "deploy");
        let f = parse("steps:\n  - id: a\n    title: t\n").expect("parses");
        assert_eq!(f.formula.name, "t");
    }
}
