//! The project model, worked out once for every front end (`check`, `report`, the language
//! server, the daemon, `bench`): which roots, which `compile_commands.json` (the one given,
//! else the nearest found upward from the paths, as clangd finds it), its SYCL flags (targets,
//! device-config files, each file's `-D`/`-I`/`-include`), which device-config files and
//! targets are in force; and loading it into an [`AnalysisHost`](crate::ide::AnalysisHost).
//! An IO edge: it reads the database, the sources and the persisted index. How problems are
//! shown (compiler-style, an LSP message, a JSON-RPC error) stays with each front end.

pub mod compile_commands;
pub(crate) mod inputs;
pub mod live;
mod load;

pub use compile_commands::{
    compile_commands_candidates, compile_env, database_candidates, find_sycl_flags,
    sycl_flags_from_compile_commands, SyclFlags,
};
pub use load::{host_of, load, LoadOptions, Workspace};

use std::path::PathBuf;

use crate::analysis::ImageRule;
use crate::devices::driver::DriverError;
use crate::devices::{self, DeviceTable, ResolvedTarget, TargetList};
use crate::workspace::CompileEnv;

/// What the user configured: the roots, and the options that win over the database's.
#[derive(Clone, Debug, Default)]
pub struct ProjectConfig {
    pub roots: Vec<PathBuf>,
    /// `--compile-commands` / the `compileCommands` setting: this database, no search.
    pub compile_commands: Option<PathBuf>,
    /// `--targets` / the `targets` setting, over the database's `-fsycl-targets`.
    pub targets: Option<String>,
    /// `--config` / the `deviceConfig` setting, over the database's
    /// `-fsycl-device-config-file`.
    pub device_configs: Vec<PathBuf>,
    /// `--include-dir` / the `includeDirs` setting: searched by every file after the
    /// directories its compile command names.
    pub include_dirs: Vec<PathBuf>,
}

/// The project as found: the configuration with the database's options filled in.
#[derive(Clone, Debug, Default)]
pub struct Project {
    pub roots: Vec<PathBuf>,
    pub flags: SyclFlags,
    /// The device-config files in force: those configured, else those the database names.
    pub config_paths: Vec<PathBuf>,
    /// The `-fsycl-targets` list in force: configured, else the database's; `None` for the
    /// implicit `spir64`.
    pub target_list: Option<String>,
    /// The list was configured, so the database's driver errors do not apply to it.
    pub targets_configured: bool,
    /// Include directories configured for every file (`ProjectConfig::include_dirs`).
    pub include_dirs: Vec<PathBuf>,
}

/// Why the targets of a project cannot be analysed.
#[derive(Clone, Debug)]
pub enum TargetProblem {
    /// What the driver refuses in the database's own commands (an unknown `--offload-arch`):
    /// the build fails there.
    Driver(Vec<DriverError>),
    /// Names in the list that are no target (`list` as written).
    Invalid { list: String, parsed: TargetList },
    /// A configured list that names nothing (`--targets ""`, an unset variable): the driver
    /// refuses it, and reading it as the implicit `spir64` would hide the database's targets.
    Empty,
}

impl Project {
    /// Finds and reads the database; an unreadable or invalid one is an error.
    pub fn discover(config: &ProjectConfig) -> Result<Project, String> {
        let candidates = match &config.compile_commands {
            Some(p) => vec![p.clone()],
            None => database_candidates(&config.roots),
        };
        let flags = find_sycl_flags(&candidates)?.unwrap_or_default();
        Ok(Self::with_flags(config, flags))
    }

    /// The project with these flags (a front end that keeps going without the database).
    pub fn with_flags(config: &ProjectConfig, flags: SyclFlags) -> Project {
        let config_paths = if config.device_configs.is_empty() {
            flags.device_configs.clone()
        } else {
            config.device_configs.clone()
        };
        let target_list = config
            .targets
            .clone()
            .or_else(|| (!flags.targets.is_empty()).then(|| flags.targets.join(",")));
        Project {
            roots: config.roots.clone(),
            config_paths,
            target_list,
            targets_configured: config.targets.is_some(),
            include_dirs: config.include_dirs.clone(),
            flags,
        }
    }

    /// The database named device-config files and none were configured.
    pub fn configs_from_database(&self) -> bool {
        !self.flags.device_configs.is_empty() && self.config_paths == self.flags.device_configs
    }

    /// The targets in force, resolved against `table`; `Ok(None)` for the implicit `spir64`.
    pub fn targets(
        &self,
        table: &DeviceTable,
    ) -> Result<Option<Vec<ResolvedTarget>>, TargetProblem> {
        if !self.targets_configured && !self.flags.errors.is_empty() {
            return Err(TargetProblem::Driver(self.flags.errors.clone()));
        }
        let Some(list) = &self.target_list else {
            return Ok(None);
        };
        if list.split(',').all(|name| name.trim().is_empty()) {
            return Err(TargetProblem::Empty);
        }
        let parsed = devices::parse_target_list(list, table);
        if !parsed.invalid.is_empty() {
            return Err(TargetProblem::Invalid {
                list: list.clone(),
                parsed,
            });
        }
        Ok(Some(parsed.targets))
    }

    /// The database's entries that cannot be read (no `directory`, `file` or command), located
    /// in it: the build tools refuse them, so nothing can be answered for them.
    pub fn database_problems(&self) -> Vec<crate::diagnostics::Diagnostic> {
        use crate::diagnostics::{Code, Severity};
        self.located_in_database(
            &self.flags.entry_errors,
            Severity::Error,
            Code::InvalidCompileDatabase,
        )
    }

    /// The database's notes about its commands (an ocloc `-device` that names no device of the
    /// table), located in it; none when the targets are configured, as its targets then do
    /// not apply.
    pub fn driver_notes(&self) -> Vec<crate::diagnostics::Diagnostic> {
        use crate::diagnostics::{Code, Severity};
        if self.targets_configured {
            return Vec::new();
        }
        self.located_in_database(&self.flags.notes, Severity::Note, Code::UnboundDevice)
    }

    /// Messages about the database as diagnostics at their ranges in its text (its start when
    /// the file changed since and a range no longer fits).
    fn located_in_database(
        &self,
        messages: &[(String, crate::text::TextRange)],
        severity: crate::diagnostics::Severity,
        code: crate::diagnostics::Code,
    ) -> Vec<crate::diagnostics::Diagnostic> {
        let Some(path) = &self.flags.database else {
            return Vec::new();
        };
        if messages.is_empty() {
            return Vec::new();
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut sink = crate::diagnostics::DiagnosticSink::new(
            std::sync::Arc::from(path.display().to_string()),
            &text,
        );
        for (message, range) in messages {
            let range = if range.end <= text.len() {
                *range
            } else {
                crate::text::TextRange::new(0, 0)
            };
            sink.push(range, severity, code, message.clone(), Vec::new());
        }
        sink.finish()
    }

    /// How the database's commands build device images: optimised unless an entry says
    /// otherwise, `-fsycl-fp64-conv-emu` if an entry passes it, typed pointers if an entry's
    /// compiler is DPC++ 2023 or older.
    pub fn image_rule(&self) -> ImageRule {
        ImageRule {
            optimised: !self.flags.device_unoptimised,
            fp64_conv_emu: self.flags.fp64_conv_emu,
            typed_pointers: self.flags.typed_pointers,
        }
    }

    /// AdaptiveCpp's rules when the database's commands run `acpp` and the targets are theirs
    /// alone (not configured over them, nor mixed with DPC++ commands' targets), as
    /// `compile_env` gives its passes' macros then.
    pub fn implementation(&self) -> devices::Implementation {
        match &self.flags.acpp {
            Some(spec)
                if !self.targets_configured && self.flags.targets == spec.table_targets() =>
            {
                devices::Implementation::AdaptiveCpp
            }
            _ => devices::Implementation::Dpcpp,
        }
    }

    /// How sources are preprocessed for `targets` (the implicit `spir64` when `None`).
    pub fn compile_env(
        &self,
        targets: Option<&[ResolvedTarget]>,
        table: &DeviceTable,
    ) -> CompileEnv {
        compile_env(targets, table, &self.flags).with_include_dirs(&self.include_dirs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &std::path::Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const DB: &str = r#"[{"directory": "/b", "file": "a.cpp", "command": "clang++ -fsycl -fsycl-targets=intel_gpu_pvc -c a.cpp"}]"#;

    #[test]
    fn the_database_is_found_upward_from_a_file_or_directory() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        write(&top.join("build/compile_commands.json"), DB);
        write(&top.join("src/deep/k.cpp"), "");
        for root in [
            top.join("src/deep/k.cpp"),
            top.join("src/deep"),
            top.to_path_buf(),
        ] {
            let p = Project::discover(&ProjectConfig {
                roots: vec![root.clone()],
                ..Default::default()
            })
            .unwrap();
            assert_eq!(
                p.target_list.as_deref(),
                Some("intel_gpu_pvc"),
                "from {root:?}"
            );
        }
        // The nearest wins: a database beside the sources hides the one above.
        write(
            &top.join("src/compile_commands.json"),
            &DB.replace("intel_gpu_pvc", "nvidia_gpu_sm_80"),
        );
        let p = Project::discover(&ProjectConfig {
            roots: vec![top.join("src/deep")],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(p.target_list.as_deref(), Some("nvidia_gpu_sm_80"));
    }

    /// AdaptiveCpp's rules and passes hold while the targets are the `acpp` commands' alone.
    #[test]
    fn an_acpp_database_is_adaptivecpps_while_its_targets_are() {
        let table = DeviceTable::builtin();
        let acpp = r#"{"directory": "/b", "file": "a.cpp", "command": "acpp --acpp-targets='omp;hip:gfx90a' -c a.cpp"}"#;
        let project = |db: String, targets: Option<&str>| {
            let flags = sycl_flags_from_compile_commands(&db).unwrap();
            Project::with_flags(
                &ProjectConfig {
                    targets: targets.map(String::from),
                    ..Default::default()
                },
                flags,
            )
        };
        let p = project(format!("[{acpp}]"), None);
        assert_eq!(p.implementation(), devices::Implementation::AdaptiveCpp);
        assert_eq!(p.target_list.as_deref(), Some("x86_64,amd_gpu_gfx90a"));
        let targets = p.targets(table).unwrap();
        let env = p.compile_env(targets.as_deref(), table);
        assert_eq!(
            env.compile_count(),
            2,
            "the host pass and the gfx90a device pass"
        );
        let p = project(format!("[{acpp}]"), Some("amd_gpu_gfx90a"));
        assert_eq!(p.implementation(), devices::Implementation::Dpcpp);
        let mixed = format!("[{acpp}, {}]", &DB[1..DB.len() - 1]);
        let p = project(mixed, None);
        assert_eq!(p.implementation(), devices::Implementation::Dpcpp);
    }

    #[test]
    fn configured_options_win_over_the_database() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("compile_commands.json"), DB);
        let given = dir.path().join("other.json");
        write(&given, &DB.replace("intel_gpu_pvc", "intel_gpu_dg1"));
        let config = ProjectConfig {
            roots: vec![dir.path().to_path_buf()],
            compile_commands: Some(given),
            ..Default::default()
        };
        let p = Project::discover(&config).unwrap();
        assert_eq!(p.target_list.as_deref(), Some("intel_gpu_dg1"));
        let p = Project::discover(&ProjectConfig {
            targets: Some("spir64".into()),
            ..config
        })
        .unwrap();
        assert_eq!(p.target_list.as_deref(), Some("spir64"));
        let table = DeviceTable::builtin();
        assert_eq!(p.targets(table).unwrap().unwrap()[0].canonical, "spir64");
    }

    #[test]
    fn bad_targets_and_databases_are_problems_not_guesses() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("compile_commands.json"), "{");
        let config = ProjectConfig {
            roots: vec![dir.path().to_path_buf()],
            ..Default::default()
        };
        let e = Project::discover(&config).unwrap_err();
        assert!(e.contains("compile_commands.json"), "{e}");
        let p = Project::with_flags(
            &ProjectConfig {
                targets: Some("intel_gpu_pvcc".into()),
                ..config
            },
            SyclFlags::default(),
        );
        match p.targets(DeviceTable::builtin()) {
            Err(TargetProblem::Invalid { list, .. }) => assert_eq!(list, "intel_gpu_pvcc"),
            other => panic!("{other:?}"),
        }
    }
}
