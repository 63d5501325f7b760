//! Code lenses: the line shown above a kernel.

/// The line a code lens shows above a kernel: on how many targets it runs, and why not on the
/// others (`runs on 2/3 targets — not in intel_gpu_dg1's image: fp64`).
pub fn kernel_lens(row: &crate::analysis::matrix::Row) -> String {
    use crate::analysis::matrix::Status;
    let n = row.cells.len();
    let runs = row
        .cells
        .iter()
        .filter(|c| c.status == Status::Compatible)
        .count();
    if runs == n {
        return format!("runs on all {n} targets");
    }
    let parts: Vec<String> = row
        .cells
        .iter()
        .filter_map(|c| match c.status {
            Status::Compatible => None,
            Status::NotInImage => Some(format!("not in {}'s image: {}", c.target, c.why())),
            Status::MayFail => Some(format!("may fail on {}: {}", c.target, c.why())),
            Status::NotCompiled => Some(format!("not compiled for {}", c.target)),
        })
        .collect();
    format!("runs on {runs}/{n} targets — {}", parts.join("; "))
}
