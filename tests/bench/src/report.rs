//! Samples, summaries (median and p95), the printed table and the JSON file.
//!
//! Every row compares a measured value with a baseline measured in the same run and gives
//! their ratio; a goal, where one exists, is a bound on that ratio — or, where the product
//! states a goal in absolute terms ("within 50 ms"), on the value's median and p95. Nothing here
//! fails the run: a missed goal is printed, not asserted.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

/// Median, p95 (nearest rank) and extremes of a set of samples.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    pub p95: f64,
    pub min: f64,
    pub max: f64,
}

impl Summary {
    pub fn of(samples: &[f64]) -> Summary {
        assert!(!samples.is_empty(), "a summary needs samples");
        let mut s = samples.to_vec();
        s.sort_by(|a, b| a.total_cmp(b));
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        let rank = ((0.95 * n as f64).ceil() as usize).clamp(1, n);
        Summary {
            n,
            median,
            p95: s[rank - 1],
            min: s[0],
            max: s[n - 1],
        }
    }

    /// One value measured once.
    pub fn single(v: f64) -> Summary {
        Summary::of(&[v])
    }
}

/// Durations in microseconds.
pub fn micros(d: &[Duration]) -> Vec<f64> {
    d.iter().map(|d| d.as_secs_f64() * 1e6).collect()
}

/// Durations in milliseconds.
pub fn millis(d: &[Duration]) -> Vec<f64> {
    d.iter().map(|d| d.as_secs_f64() * 1e3).collect()
}

/// A row's goal: an upper bound on its ratio, or on its value itself (median and p95, in the
/// row's unit) where the product states one in absolute terms, such as "within 50 ms".
#[derive(Debug, Clone, Serialize)]
pub struct Goal {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_value: Option<f64>,
    /// A tighter bound on the median alone (the p95 is bound by `max_value`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_median: Option<f64>,
}

impl Goal {
    fn text(&self, unit: &str) -> String {
        if let (None, Some(m), Some(v)) = (self.max_ratio, self.max_median, self.max_value) {
            return format!("≤ {} {unit} median, ≤ {} {unit} p95", num(m), num(v));
        }
        match (self.max_ratio, self.max_value) {
            (Some(r), Some(v)) => format!("≤ {}×, ≤ {} {unit}", num(r), num(v)),
            (Some(r), None) => format!("≤ {}×", num(r)),
            (None, Some(v)) => format!("≤ {} {unit}", num(v)),
            (None, None) => "—".into(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub group: String,
    pub name: String,
    pub unit: String,
    pub value: Summary,
    pub baseline_name: String,
    pub baseline: Summary,
    /// `value.median / baseline.median`.
    pub ratio: f64,
    pub goal: Option<Goal>,
}

impl Row {
    pub fn new(
        group: &str,
        name: impl Into<String>,
        unit: &str,
        value: Summary,
        baseline_name: impl Into<String>,
        baseline: Summary,
    ) -> Row {
        let ratio = if baseline.median > 0.0 {
            value.median / baseline.median
        } else {
            f64::NAN
        };
        Row {
            group: group.into(),
            name: name.into(),
            unit: unit.into(),
            value,
            baseline_name: baseline_name.into(),
            baseline,
            ratio,
            goal: None,
        }
    }

    /// A goal on the ratio.
    pub fn goal(mut self, max_ratio: f64) -> Row {
        self.goal = Some(Goal {
            max_ratio: Some(max_ratio),
            max_value: None,
            max_median: None,
        });
        self
    }

    /// A goal on the value itself: its median and its p95 at most `max` (in the row's unit).
    /// Informational like every goal here: printed, never asserted.
    pub fn goal_at_most(mut self, max: f64) -> Row {
        self.goal = Some(Goal {
            max_ratio: None,
            max_value: Some(max),
            max_median: None,
        });
        self
    }

    /// Both goals: on the ratio and on the value itself (see [`Row::goal_at_most`]).
    pub fn goals(mut self, max_ratio: f64, max: f64) -> Row {
        self.goal = Some(Goal {
            max_ratio: Some(max_ratio),
            max_value: Some(max),
            max_median: None,
        });
        self
    }

    /// A goal on the value itself: its median at most `median`, its p95 at most `p95`.
    pub fn goal_median_p95(mut self, median: f64, p95: f64) -> Row {
        self.goal = Some(Goal {
            max_ratio: None,
            max_value: Some(p95),
            max_median: Some(median),
        });
        self
    }

    pub fn meets_goal(&self) -> Option<bool> {
        let within = |bound: Option<f64>, v: f64| bound.is_none_or(|b| v <= b);
        self.goal.as_ref().map(|g| {
            within(g.max_ratio, self.ratio)
                && within(g.max_value, self.value.median)
                && within(g.max_value, self.value.p95)
                && within(g.max_median, self.value.median)
        })
    }
}

/// A fact worth printing next to the numbers (a count, a size, an invariant).
#[derive(Debug, Clone)]
pub struct Fact {
    pub group: String,
    pub name: String,
    pub value: Value,
    pub text: String,
}

#[derive(Debug, Default)]
pub struct Report {
    pub rows: Vec<Row>,
    pub facts: Vec<Fact>,
}

impl Report {
    pub fn row(&mut self, row: Row) {
        self.rows.push(row);
    }

    pub fn fact(&mut self, group: &str, name: &str, value: Value, text: impl Into<String>) {
        self.facts.push(Fact {
            group: group.into(),
            name: name.into(),
            value,
            text: text.into(),
        });
    }

    pub fn print(&self) {
        let header = [
            "group",
            "measurement",
            "unit",
            "median",
            "p95",
            "n",
            "baseline",
            "base median",
            "base p95",
            "ratio",
            "goal",
            "verdict",
        ];
        let mut lines: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
        for r in &self.rows {
            lines.push(vec![
                r.group.clone(),
                r.name.clone(),
                r.unit.clone(),
                num(r.value.median),
                num(r.value.p95),
                r.value.n.to_string(),
                r.baseline_name.clone(),
                num(r.baseline.median),
                num(r.baseline.p95),
                format!("{}×", num(r.ratio)),
                r.goal
                    .as_ref()
                    .map(|g| g.text(&r.unit))
                    .unwrap_or_else(|| "—".into()),
                match r.meets_goal() {
                    Some(true) => "ok".into(),
                    Some(false) => "MISSED".into(),
                    None => "—".into(),
                },
            ]);
        }
        let cols = header.len();
        let widths: Vec<usize> = (0..cols)
            .map(|c| {
                lines
                    .iter()
                    .map(|l| l[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let numeric = |c: usize| matches!(c, 3 | 4 | 5 | 7 | 8 | 9);
        let rule: String = widths
            .iter()
            .map(|w| "-".repeat(*w))
            .collect::<Vec<_>>()
            .join("-+-");
        for (i, line) in lines.iter().enumerate() {
            let cells: Vec<String> = line
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    let pad = widths[c] - s.chars().count();
                    if numeric(c) && i > 0 {
                        format!("{}{s}", " ".repeat(pad))
                    } else {
                        format!("{s}{}", " ".repeat(pad))
                    }
                })
                .collect();
            println!("{}", cells.join(" | ").trim_end());
            if i == 0 {
                println!("{rule}");
            }
        }
        if !self.facts.is_empty() {
            println!();
            println!("facts:");
            let w = self
                .facts
                .iter()
                .map(|f| f.group.len() + f.name.len() + 1)
                .max()
                .unwrap_or(0);
            for f in &self.facts {
                let key = format!("{}/{}", f.group, f.name);
                println!("  {key:<w$}  {}", f.text);
            }
        }
    }

    pub fn to_json(&self, context: Value) -> Value {
        let facts: serde_json::Map<String, Value> = self
            .facts
            .iter()
            .map(|f| (format!("{}/{}", f.group, f.name), f.value.clone()))
            .collect();
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
                if let Value::Object(m) = &mut v {
                    m.insert("meets_goal".into(), json!(r.meets_goal()));
                }
                v
            })
            .collect();
        json!({ "context": context, "results": rows, "facts": facts })
    }

    pub fn write_json(&self, path: &Path, context: Value) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let text =
            serde_json::to_string_pretty(&self.to_json(context)).map_err(std::io::Error::other)?;
        std::fs::write(path, text + "\n")
    }
}

/// Three significant digits or so, without scientific notation.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p95_use_nearest_rank() {
        let s = Summary::of(&[5.0, 1.0, 3.0]);
        assert_eq!((s.median, s.p95, s.min, s.max), (3.0, 5.0, 1.0, 5.0));
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Summary::of(&v);
        assert_eq!((s.median, s.p95), (50.5, 95.0));
    }
}
