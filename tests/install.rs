//! What an install puts beside the binary: `--version` naming the DPC++ sources of the embedded
//! tables, shell completions that a real bash completes with, man pages that man renders.

use std::process::Command as Process;

use assert_cmd::Command;

fn bin() -> Command {
    Command::cargo_bin("sycl-analyzer").unwrap()
}

fn stdout(cmd: &mut Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

/// (data, repo, commit) of config/sources.yaml, read here independently of the binary.
fn sources() -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/config/sources.yaml"))
        .unwrap();
    let mut out: Vec<(String, String, String)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let field = |k: &str| line.trim().strip_prefix(k).map(|v| v.trim().to_string());
        if !line.starts_with(' ') && line.contains(':') {
            let name = line.split(':').next().unwrap().to_string();
            out.push((name, String::new(), String::new()));
        } else if let Some(repo) = field("repo:") {
            out.last_mut().unwrap().1 = repo;
        } else if let Some(commit) = field("commit:") {
            out.last_mut().unwrap().2 = commit;
        }
    }
    out
}

#[test]
fn version_names_the_dpcpp_revision_of_each_embedded_table() {
    let long = stdout(bin().arg("--version"));
    let sources = sources();
    assert_eq!(sources.len(), 4, "{sources:?}");
    for (data, repo, commit) in &sources {
        let line = format!("{}: DPC++ {repo}@{}", data.replace('_', " "), &commit[..12]);
        assert!(long.contains(&line), "{line:?} missing from:\n{long}");
    }
    let short = stdout(bin().arg("-V"));
    let (_, repo, commit) = sources.iter().find(|s| s.0 == "device_table").unwrap();
    assert_eq!(
        short.trim(),
        format!(
            "sycl-analyzer {} (DPC++ device table {repo}@{})",
            env!("CARGO_PKG_VERSION"),
            &commit[..12]
        )
    );
}

/// Runs bash's completion function as bash does on TAB and returns the candidates.
fn bash_complete(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let words_q: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={cword}\n_sycl__analyzer sycl-analyzer '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        words_q.join(" "),
        words[cword],
        words[cword.saturating_sub(1)],
    );
    let out = Process::new("bash")
        .args(["--norc", "-c", &program])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_commands_subcommands_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("sycl-analyzer.bash");
    std::fs::write(&script, stdout(bin().args(["completions", "bash"]))).unwrap();

    let top = bash_complete(&script, &["sycl-analyzer", "que"]);
    assert_eq!(top, ["query"]);
    let all = bash_complete(&script, &["sycl-analyzer", ""]);
    for cmd in ["check", "report", "lsp", "daemon", "targets", "completions"] {
        assert!(all.iter().any(|c| c == cmd), "{cmd} missing: {all:?}");
    }
    let query = bash_complete(&script, &["sycl-analyzer", "query", "ma"]);
    assert_eq!(query, ["macros"]);
    let formats = bash_complete(&script, &["sycl-analyzer", "check", "--format", ""]);
    assert_eq!(formats, ["text", "json", "sarif"]);
    let nested = bash_complete(
        &script,
        &["sycl-analyzer", "query", "macros", "--format", ""],
    );
    assert_eq!(nested, ["json", "flags", "header", "cmake"]);
}

#[test]
fn other_shells_get_their_own_syntax() {
    let zsh = stdout(bin().args(["completions", "zsh"]));
    assert!(zsh.starts_with("#compdef sycl-analyzer"), "{zsh:.80}");
    let fish = stdout(bin().args(["completions", "fish"]));
    assert!(fish.contains("complete -c sycl-analyzer"), "{fish:.200}");
    bin()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("invalid value 'tcsh'"));
}

#[test]
fn man_pages_for_every_command_render() {
    let dir = tempfile::tempdir().unwrap();
    let man1 = dir.path().join("share/man/man1");
    bin().args(["man", "--dir"]).arg(&man1).assert().success();
    for page in [
        "sycl-analyzer.1",
        "sycl-analyzer-check.1",
        "sycl-analyzer-query-macros.1",
    ] {
        let roff = std::fs::read_to_string(man1.join(page)).unwrap();
        assert!(roff.contains(".TH "), "{page} is not a man page");
    }
    let top = std::fs::read_to_string(man1.join("sycl-analyzer.1")).unwrap();
    assert_eq!(top, stdout(bin().arg("man")), "man and man --dir agree");
    assert!(top.contains("SYCL_ANALYZER_LOG"));

    // What a user sees: `man sycl-analyzer-check` through MANPATH, where man-db is installed.
    let Ok(out) = Process::new("man")
        .env("MANPATH", dir.path().join("share/man"))
        .env("MANWIDTH", "100")
        .env("MAN_KEEP_FORMATTING", "0")
        .args(["-P", "cat", "sycl-analyzer-check"])
        .output()
    else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must render man pages: install man-db"
        );
        eprintln!("man is not installed: rendering not checked");
        return;
    };
    // man formats bold as overstrikes ("N\x08N") when its output is not a terminal.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&out.stdout).chars() {
        if c == '\x08' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("--compile-commands"), "{text}");
    assert!(text.contains("Analyse SYCL sources"), "{text}");
}

#[test]
fn man_into_an_unwritable_place_is_a_usage_error() {
    let file = tempfile::NamedTempFile::new().unwrap();
    bin()
        .args(["man", "--dir"])
        .arg(file.path().join("man1"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot write man pages"));
}

/// Where users install from: Cargo.toml's `repository` is the URL the README's install and
/// pre-commit snippets and the code-scanning workflow use, and the LICENSE file holds the
/// license Cargo.toml declares.
#[test]
fn the_repository_and_license_agree_everywhere() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let url = env!("CARGO_PKG_REPOSITORY");
    assert!(url.starts_with("https://"), "{url:?}");
    let readme = read("README.md");
    let workflow = read("examples/ci/github-code-scanning.yml");
    for (file, text, line) in [
        (
            "README.md",
            &readme,
            format!("cargo install --locked --git {url} "),
        ),
        ("README.md", &readme, format!("  - repo: {url}\n")),
        (
            "examples/ci/github-code-scanning.yml",
            &workflow,
            format!("cargo install --locked --git {url} "),
        ),
    ] {
        assert!(text.contains(&line), "{file} lacks {line:?}");
    }
    assert!(
        !readme.contains("repository's URL"),
        "a placeholder is left"
    );

    assert_eq!(env!("CARGO_PKG_LICENSE"), "Apache-2.0");
    let license = read("LICENSE");
    assert!(
        license.contains("Apache License\n                           Version 2.0, January 2004")
    );
    assert!(license.contains("END OF TERMS AND CONDITIONS"));
}
