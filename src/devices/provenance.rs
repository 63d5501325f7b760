//! Where the embedded device data comes from (`config/sources.yaml`): the DPC++ repository,
//! commit and file each embedded table was generated from. `--version` names them so a bug report
//! says which DPC++ the answers follow.

use std::sync::LazyLock;

use super::yaml::{self, Value};

const EMBEDDED: &str = include_str!("../../config/sources.yaml");

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// `device_table`, `aspects`, `aspects_deprecated` or `target_names`.
    pub data: String,
    pub repo: String,
    pub commit: String,
    pub path: String,
}

impl Source {
    /// `intel/llvm@e5a659008166`: the short form people paste.
    pub fn short(&self) -> String {
        let commit = self.commit.get(..12).unwrap_or(&self.commit);
        format!("{}@{commit}", self.repo)
    }
}

/// Reads the `sources.yaml` format: a mapping from data name to `{repo, commit, path}`.
pub fn parse(text: &str) -> Result<Vec<Source>, String> {
    let docs = yaml::parse(text).map_err(|e| e.message)?;
    let Some(Value::Map(entries)) = docs.first().map(|d| &d.value) else {
        return Err("sources.yaml must be a mapping".into());
    };
    let mut out = Vec::new();
    for (key, value) in entries {
        let data = key.as_str().ok_or("a source's name must be a string")?;
        let Value::Map(fields) = &value.value else {
            return Err(format!("source '{data}' must be a mapping"));
        };
        let field = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| k.as_str() == Some(name))
                .and_then(|(_, v)| v.as_str())
                .map(str::to_owned)
                .ok_or(format!("source '{data}' has no string '{name}'"))
        };
        out.push(Source {
            data: data.to_owned(),
            repo: field("repo")?,
            commit: field("commit")?,
            path: field("path")?,
        });
    }
    Ok(out)
}

/// The sources of the data embedded in this binary.
pub fn embedded() -> &'static [Source] {
    static SOURCES: LazyLock<Vec<Source>> =
        LazyLock::new(|| parse(EMBEDDED).expect("embedded config/sources.yaml is valid"));
    &SOURCES
}

/// The lines `--version` adds under the version: one per embedded table.
pub fn version_lines() -> String {
    embedded()
        .iter()
        .map(|s| {
            let file = s.path.rsplit('/').next().unwrap_or(&s.path);
            format!("{}: DPC++ {} ({file})", s.data.replace('_', " "), s.short())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_sources_name_every_table() {
        let names: Vec<&str> = embedded().iter().map(|s| s.data.as_str()).collect();
        assert_eq!(
            names,
            [
                "device_table",
                "aspects",
                "aspects_deprecated",
                "target_names"
            ]
        );
        for s in embedded() {
            assert_eq!(s.commit.len(), 40, "{s:?}: a full commit hash");
            assert!(s.commit.bytes().all(|b| b.is_ascii_hexdigit()), "{s:?}");
        }
    }

    #[test]
    fn a_source_without_a_commit_is_an_error() {
        let err = parse("device_table: {repo: intel/llvm, path: x.td}\n").unwrap_err();
        assert!(err.contains("'commit'"), "{err}");
    }
}
