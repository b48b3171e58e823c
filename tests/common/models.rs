//! The models under a directory of the repository, for the tests that run them all.

use std::path::{Path, PathBuf};

/// Appends every `.bp` and `.zing` file under `dir` (recursively, in name order) to `out`.
pub fn models(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            models(&p, out);
        } else if p.extension().is_some_and(|x| x == "bp" || x == "zing") {
            out.push(p);
        }
    }
}
