//! The command line: argument parsing, file reading and output. The only IO edge of the device
//! knowledge; every answer comes from `crate::devices`.

mod check;
mod config_cmd;
mod output;
mod remote;
mod report;
mod targets_md;
mod watch;

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

use crate::devices::{self, config, ConfigFile, DeviceTable, MacroFormat, TargetList};
use crate::diagnostics::{suggest, with_did_you_mean, Code, Diagnostic, DiagnosticSink, Severity};
use crate::{proto, server};
use output::Reporter;

/// Exit codes, one rule for every command: the contract with build systems and CI.
/// Nothing found.
pub const EXIT_OK: i32 = 0;
/// Findings: what the command looks for was found (a source finding, an invalid name asked
/// about with `query target`, an error in a file given to `config check`).
pub const EXIT_INVALID: i32 = 1;
/// The run could not answer: usage, IO, an invalid or empty target list, a device-config file
/// with errors, a malformed compile database entry, no analysable C++ source.
pub const EXIT_USAGE: i32 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "sycl-analyzer",
    version,
    about = "SYCL optional-feature checks without the compiler: device_has mismatches with their call chains, kernels left out of AOT images, the DPC++ device table, predefined macros and aspect traits",
    after_long_help = "Exit status, for every command: 0 nothing found; 1 findings (what the command looks for: a source finding of `check`, an invalid name asked about with `query target`, an error in a file given to `config check`); 2 the run could not answer: a usage or IO error, an invalid or empty target list, a device-config file with errors, a malformed compile_commands.json entry, no analysable C++ source. JSON and SARIF outputs say why (`problems`, SARIF notifications).\n\nEnvironment: SYCL_ANALYZER_LOG sets what is logged (tracing's env-filter syntax, e.g. `debug` or `sycl_analyzer::lsp=debug,warn`)."
)]
struct Cli {
    /// Device-config YAML applied on top of the embedded default table, as DPC++'s
    /// -fsycl-device-config-file= (repeatable; later files win).
    #[arg(long = "config", value_name = "FILE", global = true)]
    configs: Vec<PathBuf>,

    /// For `query`, `check`, `watch` and `lsp`: ask the running daemon instead of computing
    /// here (the daemon's own device config then applies). `--connect` alone uses the default
    /// socket; another one is written `--connect=SOCKET`, so a path after it is never taken
    /// for the socket.
    #[arg(
        long,
        value_name = "SOCKET",
        num_args = 0..=1,
        require_equals = true,
        global = true
    )]
    connect: Option<Option<PathBuf>>,

    /// Write logs to FILE (appended) instead of standard error; their level comes from
    /// SYCL_ANALYZER_LOG (env-filter syntax: `debug`, `sycl_analyzer::lsp=trace,warn`).
    #[arg(long, value_name = "FILE", global = true)]
    log_file: Option<PathBuf>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List every target -fsycl-targets takes: the device table (embedded default plus --config
    /// files) and the driver's names without an entry.
    Targets {
        /// Only these targets (any spelling; a comma-separated argument counts as several).
        names: Vec<String>,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// List the known aspects with their enum values.
    Aspects {
        #[arg(long, value_enum, default_value_t = TextFormat::Text)]
        format: TextFormat,
    },
    /// Answer a question about targets.
    #[command(subcommand)]
    Query(Query),
    /// Print a shell completion script (install: see the README's "Installing").
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page, or write one page per command into DIR.
    Man {
        /// Write sycl-analyzer.1 and sycl-analyzer-<command>.1 here (e.g. ~/.local/share/man/man1).
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Work with device-config files.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print the JSON Schema of the device-config YAML.
    Schema,
    /// Measure: raw parse, cold and warm analysis, edit latency in the language server, socket
    /// query latency, peak memory; on a directory or a generated workspace.
    Bench {
        /// A real code base (default: a generated one).
        dir: Option<PathBuf>,
        /// Lines of the generated workspace (10k, 100k, 1M...).
        #[arg(long, value_name = "LINES")]
        synthetic: Option<usize>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Random one-line edits measured in the language server.
        #[arg(long, default_value_t = 1000)]
        edits: usize,
        /// Open and edit only the source whose path ends so (to profile one slow file).
        #[arg(long, value_name = "SUFFIX")]
        edit_file: Option<String>,
        /// Socket queries measured.
        #[arg(long, default_value_t = 20000)]
        queries: usize,
        /// A few seconds' proof that the harness works (2k lines, 20 edits, 400 queries).
        #[arg(long)]
        quick: bool,
        /// Instead: a load test of the real daemon, 16 clients sending this many mixed queries
        /// in all, every answer checked, the daemon's memory sampled.
        #[arg(long, value_name = "QUERIES")]
        load: Option<usize>,
        /// Instead: the daemon's live analysis on the workspace
        /// the first `sycl/checkFile`, this many more on its sources, and a tenth as many
        /// saves each followed by that file's request (every file restored after).
        /// (on DIR, else a generated workspace of --synthetic lines, 100k by default).
        #[arg(long, value_name = "REQUESTS")]
        daemon: Option<usize>,
        /// The targets of `--daemon`'s requests.
        #[arg(long, default_value = "intel_gpu_dg1")]
        daemon_targets: String,
        /// With `--daemon`: then this many saves, each taken in and followed by 50 requests;
        /// memory after the first 1000 saves against the end, latency drift.
        #[arg(long, value_name = "CHANGES", default_value_t = 0)]
        daemon_soak: usize,
        /// The soak's saves add a function with a new name (an interface change) instead of
        /// a comment.
        #[arg(long)]
        soak_new_names: bool,
        #[arg(long)]
        json: bool,
    },
    /// Serve the Language Server Protocol on stdio, for editors.
    Lsp {
        /// Also serve the daemon's JSON-RPC methods on this socket (default socket if no path),
        /// from the editor's live state.
        #[arg(long, value_name = "PATH", num_args = 0..=1)]
        listen: Option<Option<PathBuf>>,
    },
    /// Serve JSON-RPC 2.0 on a Unix socket for build systems (newline-delimited JSON).
    Daemon {
        /// Socket path (default: $XDG_RUNTIME_DIR/sycl-analyzer/daemon.sock, else a per-user
        /// directory in the temp dir).
        #[arg(long, value_name = "PATH")]
        socket: Option<PathBuf>,
        /// Workspace roots: sycl/checkFile only reads files inside them (default: the current
        /// directory).
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        /// Clients served at once; one more is answered with an error and closed.
        #[arg(long, value_name = "N", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
        max_connections: u32,
        /// Seconds after which a connection that completes no message is closed.
        #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
        idle_timeout: u64,
        /// Print the socket path the daemon would listen on (and clients use by default),
        /// then exit without serving.
        #[arg(long)]
        print_socket: bool,
        /// Exit when standard input closes (a daemon that `watch` starts for itself ends
        /// with it, however it ends).
        #[arg(long, hide = true)]
        exit_with_stdin: bool,
    },
    /// Analyse SYCL sources: device_has mismatches with their call chains, AOT-target checks.
    Check {
        /// Files or directories (walked honouring .gitignore).
        #[arg(value_name = "PATH", default_value = ".")]
        paths: Vec<PathBuf>,
        /// Comma-separated -fsycl-targets value; else the one in compile_commands.json; else
        /// the implicit spir64, which never warns.
        #[arg(long, value_name = "LIST")]
        targets: Option<String>,
        /// A compile_commands.json to read -fsycl-targets from (default: one at the top of a
        /// checked directory or in its build/).
        #[arg(long, value_name = "FILE")]
        compile_commands: Option<PathBuf>,
        /// A directory to look for included headers in, for every file, after the ones its
        /// compile command names (repeatable); headers found outside the checked paths are
        /// analysed too.
        #[arg(long = "include-dir", value_name = "DIR")]
        include_dirs: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = check::CheckFormat::Text)]
        format: check::CheckFormat,
        /// Do not use the persisted index of parsed files (in the user cache directory).
        #[arg(long)]
        no_cache: bool,
        /// Parse only the K-th of N shards of the files (balanced by size) and write their
        /// facts to --facts-out, for a CI fan-out; a final `check --facts` merges the shards.
        #[arg(long, value_name = "K/N", requires = "facts_out")]
        shard: Option<check::Shard>,
        /// Where --shard writes its facts.
        #[arg(long, value_name = "FILE", requires = "shard")]
        facts_out: Option<PathBuf>,
        /// Facts files written by the shards (repeatable): their files are not parsed again
        /// (unless changed since); the results equal those of an unsharded run.
        #[arg(long = "facts", value_name = "FILE", conflicts_with = "shard")]
        facts: Vec<PathBuf>,
        /// The DPC++ (oneAPI) release that builds the project, whose rules the analysis
        /// follows: 2023.x and older compiled device code with typed pointers, so a `double *`
        /// (a pointer to anything that uses an aspect) used that aspect, and recorded an
        /// image's aspects before optimisation only, so a double narrowed back to float
        /// (`float y = x * 0.5;`) still used fp64. Default: the version
        /// in compile_commands.json's compiler path (`.../compiler/2023.2.1/linux/bin/icpx`),
        /// else the current release.
        #[arg(long, value_name = "VERSION", value_parser = parse_dpcpp)]
        dpcpp: Option<crate::devices::DpcppRelease>,
    },
    /// Analyse continuously: print the findings, then the findings of each file that changes
    /// as files are saved (through the daemon at --connect, else a daemon of its own that
    /// ends with it).
    Watch {
        /// A file or directory: the findings located in it are shown (the whole project that
        /// holds it is analysed).
        #[arg(value_name = "PATH", default_value = ".")]
        path: PathBuf,
        /// Comma-separated -fsycl-targets value; else the one in compile_commands.json.
        #[arg(long, value_name = "LIST")]
        targets: Option<String>,
    },
    /// Which kernel each target's image holds, and why not: a kernel x target matrix.
    Report {
        /// Files or directories (walked honouring .gitignore).
        #[arg(value_name = "PATH", default_value = ".")]
        paths: Vec<PathBuf>,
        /// Comma-separated -fsycl-targets value (a "what if" list); else the one in
        /// compile_commands.json.
        #[arg(long, value_name = "LIST")]
        targets: Option<String>,
        /// A compile_commands.json to read the targets and flags from.
        #[arg(long, value_name = "FILE")]
        compile_commands: Option<PathBuf>,
        /// A directory to look for included headers in (repeatable), as for `check`.
        #[arg(long = "include-dir", value_name = "DIR")]
        include_dirs: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = report::ReportFormat::Markdown)]
        format: report::ReportFormat,
        /// Do not use the persisted index of parsed files.
        #[arg(long)]
        no_cache: bool,
        /// Write the report to FILE instead of standard output (an HTML page's links to the
        /// sources are relative to FILE's directory; on standard output, to the current one).
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
        /// The DPC++ (oneAPI) release that builds the project, as for `check`.
        #[arg(long, value_name = "VERSION", value_parser = parse_dpcpp)]
        dpcpp: Option<crate::devices::DpcppRelease>,
    },
}

/// `--dpcpp VERSION`: `2023.2`, `2024.0`, `current`.
fn parse_dpcpp(text: &str) -> Result<crate::devices::DpcppRelease, String> {
    crate::devices::DpcppRelease::parse(text).ok_or_else(|| {
        format!("'{text}' is not a DPC++ release: give its version (2023.2, 2024.0) or 'current'")
    })
}

#[derive(Subcommand, Debug)]
pub(crate) enum Query {
    /// Is each -fsycl-targets name valid, and what does it resolve to?
    Target {
        /// Target names (a comma-separated list counts as several names).
        #[arg(required = true, value_name = "NAME")]
        names: Vec<String>,
        #[arg(long, value_enum, default_value_t = TextFormat::Json)]
        format: TextFormat,
    },
    /// The macros the compiler predefines for a -fsycl-targets list, or for a command line.
    Macros {
        /// Comma-separated -fsycl-targets value; absent means the implicit spir64 (an empty
        /// list is refused, as the driver refuses it).
        #[arg(long, value_name = "LIST")]
        targets: Option<String>,
        /// A compile command line instead, read as the DPC++ driver reads it
        /// (`-fsycl --offload-arch=pvc,sm_80`, `-fsycl-targets=spir64_gen -Xs "-device dg1"`).
        #[arg(
            long,
            value_name = "COMMAND",
            conflicts_with = "targets",
            allow_hyphen_values = true
        )]
        flags: Option<String>,
        #[arg(long, value_enum, default_value_t = MacroOutput::Json)]
        format: MacroOutput,
    },
    /// any_device_has<A> and all_devices_have<A> for a -fsycl-targets list.
    Traits {
        /// Comma-separated -fsycl-targets value; absent means the implicit spir64 (an empty
        /// list is refused, as the driver refuses it).
        #[arg(long, value_name = "LIST")]
        targets: Option<String>,
        /// Only these aspects (repeatable); every aspect by default.
        #[arg(long = "aspect", value_name = "ASPECT")]
        aspects: Vec<String>,
        #[arg(long, value_enum, default_value_t = TextFormat::Json)]
        format: TextFormat,
    },
}

#[derive(Subcommand, Debug)]
enum ConfigCommand {
    /// Check device-config files and report every problem with its position.
    Check {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = TextFormat::Text)]
        format: TextFormat,
    },
    /// Write a device-config entry per device of a `sycl-ls --verbose` transcript: its aspects
    /// and sub-group sizes, under its architecture's target name (else a name made from the
    /// device's name).
    FromSyclLs {
        /// The saved output of `sycl-ls --verbose` (`-` or none: standard input).
        #[arg(value_name = "FILE")]
        input: Option<PathBuf>,
        /// Append the entries to this device-config file (in place, unless --output), its text
        /// and comments kept; a target it already defines is reported and left as it is.
        #[arg(long, value_name = "FILE")]
        merge: Option<PathBuf>,
        /// Write the YAML to FILE instead of standard output.
        #[arg(long, short = 'o', value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    Text,
    Json,
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TextFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum MacroOutput {
    Json,
    Flags,
    Header,
    Cmake,
}

/// Runs the CLI and returns the process exit code.
pub fn main() -> i32 {
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
        }
    };
    if matches!(cli.command, Command::Daemon { .. }) {
        crate::memory::single_arena();
    }
    // Servers log what they do; a command only what went wrong.
    let default = match cli.command {
        Command::Daemon { .. } | Command::Lsp { .. } => "info",
        _ => "warn",
    };
    if let Err(e) = crate::logging::init(cli.log_file.as_deref(), default) {
        eprintln!("error: {e}");
        return EXIT_USAGE;
    }
    let mut reporter = Reporter::new(std::io::stderr().is_terminal());
    match run(cli, &mut reporter) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            EXIT_USAGE
        }
    }
}

/// The clap command with the version naming the DPC++ sources of the embedded tables; the man
/// page and completions are generated from the same definition.
fn command() -> clap::Command {
    static LONG: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        format!(
            "{}\n{}",
            env!("CARGO_PKG_VERSION"),
            devices::provenance::version_lines()
        )
    });
    static SHORT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let table = devices::provenance::embedded()
            .iter()
            .find(|s| s.data == "device_table")
            .map(|s| format!(" (DPC++ device table {})", s.short()))
            .unwrap_or_default();
        format!("{}{table}", env!("CARGO_PKG_VERSION"))
    });
    Cli::command()
        .version(SHORT.as_str())
        .long_version(LONG.as_str())
}

fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))
}

fn load_config(path: &Path, reporter: &mut Reporter) -> Result<ConfigFile, String> {
    let bytes = read_file(path)?;
    let name: Arc<str> = Arc::from(path.display().to_string());
    reporter.add_source(&name, &String::from_utf8_lossy(&bytes));
    Ok(config::load_bytes(name, &bytes))
}

fn run(cli: Cli, reporter: &mut Reporter) -> Result<i32, String> {
    if let (Some(socket), Command::Query(query)) = (&cli.connect, &cli.command) {
        let socket = socket
            .clone()
            .unwrap_or_else(server::daemon::default_socket);
        return remote::query(&socket, query);
    }
    if let (Some(socket), Command::Check { .. }) = (&cli.connect, &cli.command) {
        let socket = socket
            .clone()
            .unwrap_or_else(server::daemon::default_socket);
        let Command::Check {
            paths,
            targets,
            compile_commands,
            include_dirs,
            format,
            no_cache,
            shard,
            facts_out,
            facts,
            dpcpp,
        } = cli.command
        else {
            unreachable!("matched above")
        };
        if dpcpp.is_some() {
            // The daemon follows its own project's release: said, not ignored.
            return Err("--dpcpp applies to a check computed here, not with --connect".into());
        }
        let args = check::CheckArgs {
            paths,
            targets,
            compile_commands,
            include_dirs,
            format,
            no_cache,
            shard,
            facts_out,
            facts,
            dpcpp: None,
        };
        return remote::check(&socket, &args, reporter);
    }
    if let Command::Watch { path, targets } = &cli.command {
        let connect = cli
            .connect
            .clone()
            .map(|s| s.unwrap_or_else(server::daemon::default_socket));
        return watch::run(&watch::WatchArgs {
            path: path.clone(),
            targets: targets.clone(),
            connect,
            configs: cli.configs.clone(),
            color: std::io::stdout().is_terminal(),
        });
    }
    if let (Some(socket), Command::Lsp { listen: None }) = (&cli.connect, &cli.command) {
        let socket = socket
            .clone()
            .unwrap_or_else(server::daemon::default_socket);
        crate::lsp::thin::run_stdio(&socket)?;
        return Ok(EXIT_OK);
    }
    if cli.connect.is_some() {
        // Said, not ignored: a build that thinks it asked the daemon must not get another answer.
        return Err(
            "--connect applies to `query`, `check`, `watch` and `lsp` (without --listen) only; \
                    `targets` and the others compute here (the daemon's methods: protocol.md)"
                .into(),
        );
    }
    match &cli.command {
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut command(), "sycl-analyzer", &mut out);
            let mut script = String::from_utf8_lossy(&out).into_owned();
            if *shell == clap_complete::Shell::Bash {
                // clap_complete's bash script spells the state of a hyphenated binary's
                // subcommands two ways (clap-rs/clap#6421), so nothing after a subcommand
                // completed; tests/install.rs completes through a real bash.
                script = script.replace("sycl__subcmd__analyzer", "sycl__analyzer");
            }
            output::out(&script);
            return Ok(EXIT_OK);
        }
        Command::Man { dir: None } => {
            let mut out = Vec::new();
            // As `generate_to` does: no page for the `help` subcommand, so both lists agree.
            clap_mangen::Man::new(command().disable_help_subcommand(true))
                .render(&mut out)
                .map_err(|e| e.to_string())?;
            output::out(&String::from_utf8_lossy(&out));
            return Ok(EXIT_OK);
        }
        Command::Man { dir: Some(dir) } => {
            std::fs::create_dir_all(dir)
                .and_then(|()| clap_mangen::generate_to(command(), dir))
                .map_err(|e| format!("cannot write man pages to '{}': {e}", dir.display()))?;
            return Ok(EXIT_OK);
        }
        _ => {}
    }
    if let Command::Lsp { listen } = &cli.command {
        let socket = listen
            .as_ref()
            .map(|p| p.clone().unwrap_or_else(server::daemon::default_socket));
        crate::lsp::run_stdio(socket.as_deref())?;
        return Ok(EXIT_OK);
    }
    if let Command::Daemon {
        socket,
        roots,
        max_connections,
        idle_timeout,
        print_socket,
        exit_with_stdin,
    } = &cli.command
    {
        let socket = socket
            .clone()
            .unwrap_or_else(server::daemon::default_socket);
        if *print_socket {
            println!("{}", socket.display());
            return Ok(EXIT_OK);
        }
        let roots = if roots.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            roots.clone()
        };
        let (socket, roots, configs) = server::daemon::settle(&socket, &roots, &cli.configs)?;
        // Bound first: a daemon already serving the socket is refused before anything loads,
        // and the stdin watcher below never removes a socket this process does not own.
        let listener = server::daemon::bind(&socket)?;
        let (snapshot, problems) = server::Snapshot::load(roots, configs);
        for p in problems {
            tracing::warn!("{p}");
        }
        let diagnostics: Vec<Diagnostic> = snapshot.configs.diagnostics().cloned().collect();
        reporter.report(&diagnostics);
        let limits = server::daemon::Limits {
            max_connections: *max_connections as usize,
            idle_timeout: std::time::Duration::from_secs(*idle_timeout),
        };
        if *exit_with_stdin {
            let socket = socket.clone();
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
                let _ = std::fs::remove_file(&socket);
                std::process::exit(EXIT_OK);
            });
        }
        server::daemon::run(listener, &socket, snapshot, limits)?;
        return Ok(EXIT_OK);
    }
    if let Command::Config(ConfigCommand::FromSyclLs {
        input,
        merge,
        output,
    }) = &cli.command
    {
        let args = config_cmd::FromSyclLs {
            input: input.clone(),
            merge: merge.clone(),
            output: output.clone(),
        };
        return config_cmd::from_sycl_ls(&args, reporter);
    }
    if let Command::Config(ConfigCommand::Check { files, format }) = &cli.command {
        let mut diagnostics = Vec::new();
        let mut summaries = Vec::new();
        // `--config` files are checked too, first, as they would apply.
        for path in cli.configs.iter().chain(files) {
            let cfg = load_config(path, reporter)?;
            summaries.push(output::config_summary(&cfg));
            diagnostics.extend(cfg.diagnostics);
        }
        match format {
            TextFormat::Json => output::print_json(&proto::diagnostics_json(&diagnostics)),
            TextFormat::Text => {
                reporter.report(&diagnostics);
                for s in summaries {
                    output::out(&format!("{s}\n"));
                }
            }
        }
        return Ok(exit_code(&diagnostics));
    }

    // `check` carries the problems of its `--config` files into its outputs (JSON `problems`,
    // SARIF notifications); every other command reports them here.
    let is_check = matches!(cli.command, Command::Check { .. });
    let mut config_problems = Vec::new();
    let mut configs = Vec::new();
    for path in &cli.configs {
        match load_config(path, reporter) {
            Ok(cfg) => {
                config_problems.extend(cfg.diagnostics.iter().cloned());
                configs.push(cfg);
            }
            Err(e) if is_check => config_problems.push(check::unlocated(Code::RunFailed, e)),
            Err(e) => return Err(e),
        }
    }
    let table = DeviceTable::with_overlays(&configs);
    if !is_check {
        reporter.report(&config_problems);
        if config_problems.iter().any(Diagnostic::is_error) {
            // DPC++ stops at a device-config file it cannot read whole: an answer from the
            // rest of the table would be for devices nobody configured.
            return Err(
                "the device-config file(s) above have errors: nothing was answered (fix them, \
                 or check them with `sycl-analyzer config check FILE`)"
                    .into(),
            );
        }
    }

    let code = match cli.command {
        Command::Targets { names, format } => list_targets(&names, format, &table, reporter),
        Command::Bench {
            dir,
            synthetic,
            seed,
            edits,
            edit_file,
            queries,
            quick,
            load,
            daemon,
            daemon_targets,
            daemon_soak,
            soak_new_names,
            json,
        } => {
            if let Some(n) = daemon {
                // Removed when dropped, also when generating or the run fails midway.
                let generated = match &dir {
                    Some(_) => None,
                    None => {
                        let d = crate::bench::Scratch::new("sycl-analyzer-bench-daemon-ws")?;
                        let lines = synthetic.unwrap_or(100_000);
                        crate::bench::synth::generate(d.path(), lines, seed)
                            .map_err(|e| format!("cannot generate the workspace: {e}"))?;
                        Some(d)
                    }
                };
                let root = dir
                    .clone()
                    .or_else(|| generated.as_ref().map(|d| d.path().to_path_buf()))
                    .expect("one of them");
                let figures = crate::bench::daemon::run(
                    &root,
                    n,
                    &daemon_targets,
                    seed,
                    daemon_soak,
                    soak_new_names,
                );
                drop(generated);
                output::print_json(&figures?);
                return Ok(EXIT_OK);
            }
            if let Some(total) = load {
                let figures = crate::bench::load::run(total)?;
                output::print_json(&figures);
                let wrong = figures["wrong_answers"].as_array().map_or(0, Vec::len);
                return Ok(if wrong == 0 { EXIT_OK } else { EXIT_INVALID });
            }
            let args = crate::bench::BenchArgs {
                dir,
                synthetic: if quick { Some(2_000) } else { synthetic },
                seed,
                edits: if quick { 20 } else { edits },
                edit_file,
                queries: if quick { 400 } else { queries },
            };
            let figures = crate::bench::run(&args)?;
            if json {
                output::print_json(&figures);
            } else {
                output::out(&crate::bench::table(&figures));
            }
            EXIT_OK
        }
        Command::Schema => {
            output::print_json(&proto::device_config_schema());
            EXIT_OK
        }
        Command::Aspects { format } => {
            match format {
                TextFormat::Json => output::print_json(&proto::aspects_json()),
                TextFormat::Text => output::out(&output::aspects_text()),
            }
            EXIT_OK
        }
        Command::Query(Query::Target { names, format }) => {
            let names: Vec<&str> = names.iter().flat_map(|n| n.split(',')).collect();
            let results: Vec<_> = names.iter().map(|n| devices::resolve(n, &table)).collect();
            match format {
                TextFormat::Json => output::print_json(&proto::query_target_json(&results, &table)),
                TextFormat::Text => output::out(&output::query_target_text(&results, &table)),
            }
            if results.iter().any(Result::is_err) {
                EXIT_INVALID
            } else {
                EXIT_OK
            }
        }
        Command::Query(Query::Macros {
            targets,
            flags,
            format,
        }) => {
            let targets = match flags {
                None => targets,
                Some(line) => {
                    let mut args = vec!["clang++".to_string()];
                    args.extend(devices::driver::split_command(&line));
                    let read = |p: &std::path::Path| std::fs::read_to_string(p).ok();
                    let args = devices::driver::expand_response_files(
                        &args,
                        std::path::Path::new("."),
                        &read,
                    );
                    let env = devices::acpp::env_spec(|n| std::env::var(n).ok());
                    let f = devices::driver::parse_with_env(
                        &args,
                        std::path::Path::new("."),
                        &table,
                        env.as_deref(),
                    );
                    if !f.errors.is_empty() {
                        report_driver_errors(
                            "--flags",
                            &f.errors,
                            reporter,
                            format == MacroOutput::Json,
                        );
                        return Ok(EXIT_USAGE);
                    }
                    report_driver_notes(&line, &f.notes, reporter);
                    if let Some(spec) = &f.acpp {
                        print_acpp_macros(spec, format);
                        return Ok(EXIT_OK);
                    }
                    // A command without `-fsycl-targets` compiles for the implicit spir64.
                    (!f.targets.is_empty()).then(|| f.targets.join(","))
                }
            };
            let Some(list) = query_targets(
                targets.as_deref(),
                &table,
                reporter,
                format == MacroOutput::Json,
            ) else {
                return Ok(EXIT_USAGE);
            };
            let macros = devices::predefined_macros(&list.targets, &table);
            let rendered = match format {
                MacroOutput::Json => {
                    output::print_json(&proto::macros_json(&list, &macros));
                    None
                }
                MacroOutput::Flags => Some(MacroFormat::Flags),
                MacroOutput::Header => Some(MacroFormat::Header),
                MacroOutput::Cmake => Some(MacroFormat::Cmake),
            };
            if let Some(f) = rendered {
                output::out(&devices::render_macros(
                    &macros,
                    &proto::canonical_names(&list),
                    f,
                ));
            }
            EXIT_OK
        }
        Command::Query(Query::Traits {
            targets,
            aspects,
            format,
        }) => {
            let json = format == TextFormat::Json;
            let Some(list) = query_targets(targets.as_deref(), &table, reporter, json) else {
                return Ok(EXIT_USAGE);
            };
            let Some(selected) = aspect_filter(&aspects, reporter, json) else {
                return Ok(EXIT_USAGE);
            };
            let sets = devices::trait_sets(&list.targets, &table);
            match format {
                TextFormat::Json => {
                    output::print_json(&proto::traits_json(&list, &sets, &selected))
                }
                TextFormat::Text => output::out(&output::traits_text(&list, &sets, &selected)),
            }
            EXIT_OK
        }
        Command::Config(_)
        | Command::Watch { .. }
        | Command::Daemon { .. }
        | Command::Lsp { .. }
        | Command::Completions { .. }
        | Command::Man { .. } => {
            unreachable!("handled above")
        }
        Command::Report {
            paths,
            targets,
            compile_commands,
            include_dirs,
            format,
            no_cache,
            output,
            dpcpp,
        } => report::run(
            check::CheckArgs {
                paths,
                targets,
                compile_commands,
                include_dirs,
                format: match format {
                    report::ReportFormat::Json => check::CheckFormat::Json,
                    _ => check::CheckFormat::Text,
                },
                no_cache,
                shard: None,
                facts_out: None,
                facts: Vec::new(),
                dpcpp,
            },
            format,
            output.as_deref(),
            !cli.configs.is_empty(),
            &table,
            reporter,
        )?,
        Command::Check {
            paths,
            targets,
            compile_commands,
            include_dirs,
            format,
            no_cache,
            shard,
            facts_out,
            facts,
            dpcpp,
        } => check::run(
            check::CheckArgs {
                paths,
                targets,
                compile_commands,
                include_dirs,
                format,
                no_cache,
                shard,
                facts_out,
                facts,
                dpcpp,
            },
            !cli.configs.is_empty(),
            &table,
            config_problems,
            reporter,
        )?,
    };
    Ok(code)
}

fn exit_code(diagnostics: &[Diagnostic]) -> i32 {
    if diagnostics.iter().any(Diagnostic::is_error) {
        EXIT_INVALID
    } else {
        EXIT_OK
    }
}

/// `targets [NAME]...`: the whole catalogue, or the rows of the names given (invalid ones are
/// reported as `--targets` names are, and nothing is listed).
fn list_targets(
    names: &[String],
    format: ListFormat,
    table: &DeviceTable,
    reporter: &mut Reporter,
) -> i32 {
    let mut rows = devices::catalogue::catalogue(table);
    if !names.is_empty() {
        let Some(list) = target_list(
            &names.join(","),
            table,
            reporter,
            format == ListFormat::Json,
        ) else {
            return EXIT_USAGE;
        };
        let wanted: Vec<&str> = list.targets.iter().map(|t| t.canonical.as_str()).collect();
        rows.retain(|t| wanted.contains(&t.name.as_str()));
    }
    let notable = proto::notable_aspects();
    match format {
        ListFormat::Json => output::print_json(&proto::listed_json(&rows, table, notable)),
        ListFormat::Text => output::out(&output::targets_text(&rows, table)),
        ListFormat::Markdown => output::out(&targets_md::targets_markdown(&rows, table, notable)),
    }
    EXIT_OK
}

/// A query's `--targets`: absent is the implicit `spir64`; given, it must name a target (an
/// unset variable in a build script expands to the empty list, which the driver refuses).
fn query_targets(
    list: Option<&str>,
    table: &DeviceTable,
    reporter: &mut Reporter,
    json: bool,
) -> Option<TargetList> {
    match list {
        None => Some(devices::parse_target_list("", table)),
        Some(l) if l.split(',').all(|n| n.trim().is_empty()) => {
            let d = empty_targets(l, reporter);
            if json {
                output::print_json(&proto::diagnostics_json(std::slice::from_ref(&d)));
            }
            reporter.report(&[d]);
            None
        }
        Some(l) => target_list(l, table, reporter, json),
    }
}

/// `--targets ""`: refused where it was given, as the driver refuses `-fsycl-targets=`.
pub(crate) fn empty_targets(list: &str, reporter: &mut Reporter) -> Diagnostic {
    let file: Arc<str> = Arc::from("--targets");
    reporter.add_source(&file, list);
    let mut sink = DiagnosticSink::new(file, list);
    sink.push(
        crate::text::TextRange::new(0, list.len()),
        Severity::Error,
        Code::EmptyTargets,
        "the target list is empty: name at least one target, or leave --targets out for the \
         implicit spir64 (the DPC++ driver refuses an empty -fsycl-targets=)"
            .to_string(),
        Vec::new(),
    );
    sink.finish().remove(0)
}

/// Parses `--targets`; on invalid names reports them (as JSON diagnostics on stdout when the
/// output is JSON) and returns `None`, as the driver stops at an invalid target.
fn target_list(
    list: &str,
    table: &DeviceTable,
    reporter: &mut Reporter,
    json: bool,
) -> Option<TargetList> {
    let parsed = devices::parse_target_list(list, table);
    if parsed.invalid.is_empty() {
        return Some(parsed);
    }
    report_invalid_targets(list, &parsed, reporter, json);
    None
}

/// What the driver refuses in a command line, as `invalid-target` errors with its text.
fn report_driver_errors(
    source: &str,
    errors: &[devices::driver::DriverError],
    reporter: &mut Reporter,
    json: bool,
) {
    let diagnostics = driver_error_diagnostics(source, errors, reporter);
    if json {
        output::print_json(&proto::diagnostics_json(&diagnostics));
    }
    reporter.report(&diagnostics);
}

/// The driver's refusals as diagnostics on `source` (their messages are its text).
fn driver_error_diagnostics(
    source: &str,
    errors: &[devices::driver::DriverError],
    reporter: &mut Reporter,
) -> Vec<Diagnostic> {
    let file: Arc<str> = Arc::from(source);
    let text: String = errors.iter().map(|e| format!("{}\n", e.message)).collect();
    reporter.add_source(&file, &text);
    let mut sink = DiagnosticSink::new(file, &text);
    let mut offset = 0;
    for e in errors {
        sink.push(
            crate::text::TextRange::new(offset, offset + e.message.len()),
            Severity::Error,
            Code::InvalidTarget,
            with_did_you_mean(e.message.clone(), &e.suggestions),
            e.suggestions.clone(),
        );
        offset += e.message.len() + 1;
    }
    sink.finish()
}

/// The macros of an AdaptiveCpp command: those of every pass, and each pass's own (JSON); the
/// other formats hold the macros of every pass only, as one list can.
fn print_acpp_macros(spec: &devices::acpp::AcppTargets, format: MacroOutput) {
    let compiles = devices::acpp::device_compiles(spec);
    let common = proto::acpp_common_macros(&compiles);
    let rendered = match format {
        MacroOutput::Json => {
            output::print_json(&proto::acpp_macros_json(spec, &compiles));
            return;
        }
        MacroOutput::Flags => MacroFormat::Flags,
        MacroOutput::Header => MacroFormat::Header,
        MacroOutput::Cmake => MacroFormat::Cmake,
    };
    if rendered == MacroFormat::Header {
        let mut text = format!(
            "// Generated by sycl-analyzer: the macros every AdaptiveCpp pass predefines for\n// --acpp-targets={}\n#pragma once\n",
            spec.spec
        );
        for (n, v) in &common {
            text.push_str(&format!("#define {n} {v}\n"));
        }
        output::out(&text);
        return;
    }
    output::out(&devices::render_macros(&common, &[], rendered));
}

/// What the analysis reads in a weaker way than the driver (an ocloc `-device` that names no
/// device of the table), as notes on standard error: the answer goes on.
fn report_driver_notes(line: &str, notes: &[devices::driver::DriverNote], reporter: &mut Reporter) {
    if notes.is_empty() {
        return;
    }
    let file: Arc<str> = Arc::from("--flags");
    reporter.add_source(&file, line);
    let mut sink = DiagnosticSink::new(file, line);
    for n in notes {
        let start = line.find(&n.subject).unwrap_or(0);
        let end = if n.subject.is_empty() || !line.contains(&n.subject) {
            start
        } else {
            start + n.subject.len()
        };
        sink.push(
            crate::text::TextRange::new(start, end),
            Severity::Note,
            Code::UnboundDevice,
            n.message.clone(),
            Vec::new(),
        );
    }
    reporter.report(&sink.finish());
}

fn report_invalid_targets(list: &str, parsed: &TargetList, reporter: &mut Reporter, json: bool) {
    let file: Arc<str> = Arc::from("--targets");
    reporter.add_source(&file, list);
    let diagnostics = parsed.invalid_diagnostics(file, list);
    if json {
        output::print_json(&proto::diagnostics_json(&diagnostics));
    }
    reporter.report(&diagnostics);
}

/// Resolves `--aspect` names; every aspect when none is given.
fn aspect_filter(
    names: &[String],
    reporter: &mut Reporter,
    json: bool,
) -> Option<Vec<devices::AspectId>> {
    let reg = devices::registry();
    if names.is_empty() {
        return Some(reg.iter().map(|(id, _)| id).collect());
    }
    let joined = names.join(",");
    let file: Arc<str> = Arc::from("--aspect");
    let mut sink = DiagnosticSink::new(file.clone(), &joined);
    let mut ids = Vec::new();
    let mut offset = 0;
    for name in names {
        match reg.by_name(name) {
            Some(id) => ids.push(id),
            None => {
                let suggestions = suggest(name, reg.names(), 3);
                sink.push(
                    crate::text::TextRange::new(offset, offset + name.len()),
                    Severity::Error,
                    Code::UnknownAspect,
                    with_did_you_mean(format!("unknown aspect '{name}'"), &suggestions),
                    suggestions,
                );
            }
        }
        offset += name.len() + 1;
    }
    let diagnostics = sink.finish();
    if diagnostics.is_empty() {
        return Some(ids);
    }
    reporter.add_source(&file, &joined);
    if json {
        output::print_json(&proto::diagnostics_json(&diagnostics));
    }
    reporter.report(&diagnostics);
    None
}
