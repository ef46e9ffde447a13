//! Transport benchmark for the provider binary, driven by `bench/run.sh`.
//!
//! Each run does what Terraform does: spawn with go-plugin's environment and a fresh P-521 client certificate, read
//! the handshake line, connect over mutual TLS, call GetProviderSchema, send GRPCController.Shutdown and hang up.
//! Measured: spawn → handshake line, connect, the first GetProviderSchema, idle RSS after it, Shutdown → exit, and
//! (on the first run) `--calls` further GetProviderSchema round trips. Prints JSON on stdout; with `--out-dir` it
//! also writes `results.json` and `results.md` there. Targets are reported, never asserted: a missed target prints a
//! `MISSED` line, and only a broken run (no handshake, failed call, non-zero exit) makes this exit non-zero.
//!
//! Usage: bench_plugin [--binary PATH] [--runs 30] [--calls 200] [--out-dir DIR] [--generated-at TEXT]

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{ClientIdentity, PluginProcess, median_p95};
use serde_json::{Value, json};
use terraform_provider_hyperpod::protocol::proto::tfplugin6;
use tonic::transport::Channel;

/// Idle time between the first GetProviderSchema and reading VmRSS, so the process has settled.
const SETTLE: Duration = Duration::from_millis(200);
const MB: f64 = 1_000_000.0;
const MIB: f64 = 1024.0 * 1024.0;

struct Options {
    binary: PathBuf,
    runs: usize,
    calls: usize,
    out_dir: Option<PathBuf>,
    /// A timestamp for the report (bench/run.sh passes `date -u`); defaults to Unix seconds.
    generated_at: String,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        binary: common::provider_binary(),
        runs: 30,
        calls: 200,
        out_dir: None,
        generated_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| format!("unix {}", d.as_secs()))
            .unwrap_or_default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--binary" => options.binary = PathBuf::from(value()?),
            "--runs" => options.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--calls" => options.calls = value()?.parse().map_err(|e| format!("--calls: {e}"))?,
            "--out-dir" => options.out_dir = Some(PathBuf::from(value()?)),
            "--generated-at" => options.generated_at = value()?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.runs == 0 || options.calls == 0 {
        return Err("--runs and --calls must be at least 1".into());
    }
    Ok(options)
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Median, p95 (nearest rank), min and max of `samples`, rounded for display.
fn summary(samples: &[f64]) -> Value {
    let mut sorted = samples.to_vec();
    let (median, p95) = median_p95(&mut sorted);
    let round = |x: f64| (x * 1000.0).round() / 1000.0;
    json!({
        "median": round(median),
        "p95": round(p95),
        "min": round(sorted[0]),
        "max": round(sorted[sorted.len() - 1]),
        "samples": sorted.len(),
    })
}

async fn get_provider_schema(channel: Channel) -> Result<Duration, String> {
    let mut client =
        tfplugin6::provider_client::ProviderClient::new(channel).max_decoding_message_size(256 * 1024 * 1024);
    let started = Instant::now();
    let response = client
        .get_provider_schema(tfplugin6::get_provider_schema::Request {})
        .await
        .map_err(|status| format!("GetProviderSchema: {status:?}"))?;
    let elapsed = started.elapsed();
    if !response
        .get_ref()
        .resource_schemas
        .contains_key("hyperpod_scheduling_policy")
    {
        return Err("GetProviderSchema lacks hyperpod_scheduling_policy".into());
    }
    Ok(elapsed)
}

#[derive(Default)]
struct Samples {
    handshake_ms: Vec<f64>,
    connect_ms: Vec<f64>,
    first_schema_ms: Vec<f64>,
    schema_ms: Vec<f64>,
    idle_rss_kib: Vec<f64>,
    shutdown_to_exit_ms: Vec<f64>,
}

async fn one_run(options: &Options, run: usize, samples: &mut Samples) -> Result<(), String> {
    let identity = ClientIdentity::terraform_like();
    let command = common::terraform_command(&options.binary, Some(&identity.certificate_pem));
    let mut plugin = PluginProcess::start(command, identity)?;
    samples.handshake_ms.push(millis(plugin.handshake_elapsed));

    let started = Instant::now();
    let channel = plugin
        .connect(Some(&plugin.identity))
        .await
        .map_err(|err| format!("connect: {err:?}; stderr:\n{}", plugin.stderr_text()))?;
    samples.connect_ms.push(millis(started.elapsed()));

    samples
        .first_schema_ms
        .push(millis(get_provider_schema(channel.clone()).await?));
    tokio::time::sleep(SETTLE).await;
    let rss = plugin.vm_rss_kib().ok_or("cannot read VmRSS from /proc/<pid>/status")?;
    samples.idle_rss_kib.push(rss as f64);

    if run == 0 {
        for _ in 0..options.calls {
            samples
                .schema_ms
                .push(millis(get_provider_schema(channel.clone()).await?));
        }
    }

    let (reply, exit) = plugin.shutdown(channel, Duration::from_secs(10)).await;
    reply.map_err(|status| format!("Shutdown: {status:?}"))?;
    let (status, elapsed) = exit.ok_or("the provider did not exit within 10 s of Shutdown")?;
    if !status.success() {
        return Err(format!(
            "the provider exited with {status:?}; stderr:\n{}",
            plugin.stderr_text()
        ));
    }
    samples.shutdown_to_exit_ms.push(millis(elapsed));
    Ok(())
}

/// Whether the ELF file still has a symbol table (SHT_SYMTAB); `None` if it is not a readable ELF64 file.
fn has_symbol_table(binary: &Path) -> Option<bool> {
    let bytes = std::fs::read(binary).ok()?;
    if bytes.get(..5)? != b"\x7fELF\x02" || bytes.get(5)? != &1 {
        return None; // not little-endian ELF64
    }
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    let section_headers = usize::try_from(u64_at(0x28)?).ok()?;
    let entry_size = usize::from(u16_at(0x3A)?);
    let count = usize::from(u16_at(0x3C)?);
    const SHT_SYMTAB: u32 = 2;
    let mut found = false;
    for index in 0..count {
        found |= u32_at(section_headers + index * entry_size + 4)? == SHT_SYMTAB;
    }
    Some(found)
}

fn target(name: &str, value: f64, limit: f64, unit: &str, basis: &str) -> Value {
    json!({
        "name": name,
        "value": (value * 1000.0).round() / 1000.0,
        "limit": limit,
        "unit": unit,
        "basis": basis,
        "met": value <= limit,
    })
}

fn markdown(results: &Value) -> String {
    let row = |label: &str, stats: &Value, unit: &str| {
        format!(
            "| {label} | {} {unit} | {} {unit} | {} {unit} | {} {unit} | {} |\n",
            stats["median"], stats["p95"], stats["min"], stats["max"], stats["samples"]
        )
    };
    let mut md = String::from("# terraform-provider-hyperpod transport benchmark\n\n");
    md += &format!(
        "Binary `{}`, {} runs (spawn → handshake → mTLS connect → GetProviderSchema → Shutdown), {} timed \
         GetProviderSchema calls after the first, {} CPUs, generated {}.\n\n",
        results["binary"]["path"].as_str().unwrap_or_default(),
        results["runs"],
        results["schema_calls"],
        results["environment"]["cpus"],
        results["generated_at"].as_str().unwrap_or_default(),
    );
    md += "## Targets (the handshake judged on the median, GetProviderSchema on p95; 1 MB = 10^6 bytes)\n\n";
    md += "| Metric | Value | Target | Status |\n|---|---|---|---|\n";
    for t in results["targets"].as_array().into_iter().flatten() {
        md += &format!(
            "| {} ({}) | {} {} | ≤ {} {} | {} |\n",
            t["name"].as_str().unwrap_or_default(),
            t["basis"].as_str().unwrap_or_default(),
            t["value"],
            t["unit"].as_str().unwrap_or_default(),
            t["limit"],
            t["unit"].as_str().unwrap_or_default(),
            if t["met"] == true { "met" } else { "**MISSED**" },
        );
    }
    md += "\n## Distributions\n\n| Metric | Median | p95 | Min | Max | Samples |\n|---|---|---|---|---|---|\n";
    md += &row("Spawn → handshake line", &results["handshake_ms"], "ms");
    md += &row(
        "mTLS connect (Unix socket, TLS 1.3, HTTP/2)",
        &results["connect_ms"],
        "ms",
    );
    md += &row("First GetProviderSchema", &results["first_schema_ms"], "ms");
    md += &row("GetProviderSchema (warm)", &results["schema_ms"], "ms");
    md += &row("Idle RSS after handshake + 1 schema", &results["idle_rss_mb"], "MB");
    md += &row("Shutdown sent → process exit", &results["shutdown_to_exit_ms"], "ms");
    let binary = &results["binary"];
    md += &format!(
        "\nBinary size: {} bytes = {} MB ({} MiB); symbol table present: {}.\n",
        binary["bytes"], binary["mb"], binary["mib"], binary["has_symbol_table"]
    );
    md
}

async fn bench(options: &Options) -> Result<Value, String> {
    let mut samples = Samples::default();
    for run in 0..options.runs {
        one_run(options, run, &mut samples)
            .await
            .map_err(|err| format!("run {run}: {err}"))?;
    }
    let bytes = std::fs::metadata(&options.binary)
        .map_err(|err| format!("{}: {err}", options.binary.display()))?
        .len();
    let to_mb = |kib: &f64| kib * 1024.0 / MB;
    let rss_mb: Vec<f64> = samples.idle_rss_kib.iter().map(to_mb).collect();
    let stats = |values: &[f64]| summary(values);
    let (handshake, schema, rss) = (stats(&samples.handshake_ms), stats(&samples.schema_ms), stats(&rss_mb));
    let binary_mb = bytes as f64 / MB;
    let value = |stats: &Value, key: &str| stats[key].as_f64().unwrap_or(f64::INFINITY);
    // Terraform starts the provider at least twice per command, so start-up is judged on the typical start (the
    // median), schema latency on p95.
    let targets = vec![
        target("handshake", value(&handshake, "median"), 15.0, "ms", "median"),
        target("get_provider_schema", value(&schema, "p95"), 10.0, "ms", "p95"),
        target("idle_rss", value(&rss, "max"), 40.0, "MB", "max"),
        target("binary_size", binary_mb, 32.0, "MB", "stripped bytes"),
    ];
    Ok(json!({
        "generated_at": options.generated_at,
        "runs": options.runs,
        "schema_calls": options.calls,
        "environment": {
            "cpus": std::thread::available_parallelism().map_or(0, usize::from),
        },
        "handshake_ms": handshake,
        "connect_ms": stats(&samples.connect_ms),
        "first_schema_ms": stats(&samples.first_schema_ms),
        "schema_ms": schema,
        "idle_rss_mb": rss,
        "shutdown_to_exit_ms": stats(&samples.shutdown_to_exit_ms),
        "binary": {
            "path": options.binary.display().to_string(),
            "bytes": bytes,
            "mb": (binary_mb * 100.0).round() / 100.0,
            "mib": (bytes as f64 / MIB * 100.0).round() / 100.0,
            "has_symbol_table": has_symbol_table(&options.binary),
        },
        "targets": targets,
        "all_targets_met": targets.iter().all(|t| t["met"] == true),
    }))
}

fn main() -> std::process::ExitCode {
    let options = match parse_options() {
        Ok(options) => options,
        Err(err) => {
            eprintln!("bench_plugin: {err}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let results = match runtime.block_on(bench(&options)) {
        Ok(results) => results,
        Err(err) => {
            eprintln!("bench_plugin: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let json = serde_json::to_string_pretty(&results).expect("serialisable results");
    if let Some(dir) = &options.out_dir {
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(dir.join("results.json"), format!("{json}\n")))
            .and_then(|()| std::fs::write(dir.join("results.md"), markdown(&results)));
        if let Err(err) = written {
            eprintln!("bench_plugin: writing {}: {err}", dir.display());
            return std::process::ExitCode::FAILURE;
        }
    }
    println!("{json}");
    for t in results["targets"].as_array().into_iter().flatten() {
        if t["met"] != true {
            eprintln!(
                "MISSED: {} ({}) = {} {}, target ≤ {} {}",
                t["name"].as_str().unwrap_or_default(),
                t["basis"].as_str().unwrap_or_default(),
                t["value"],
                t["unit"].as_str().unwrap_or_default(),
                t["limit"],
                t["unit"].as_str().unwrap_or_default(),
            );
        }
    }
    std::process::ExitCode::SUCCESS
}
