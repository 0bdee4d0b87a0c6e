use super::*;

fn variant(of: &str, strategy: Strategy, level: Option<f64>, themes: &[&str]) -> Variant {
    serde_json::from_value(serde_json::json!({
        "of": of, "strategy": strategy, "level": level,
        "themes": themes,
    }))
    .unwrap()
}

fn ablation(of: &str, theme: &str, themes: &[&str]) -> Variant {
    serde_json::from_value(serde_json::json!({
        "of": of, "strategy": "ablate", "theme": theme, "removed": [1],
        "themes": themes,
    }))
    .unwrap()
}

#[test]
fn the_mantel_haenszel_ratio_and_interval_match_statsmodels() {
    // statsmodels 0.15 StratifiedTable: oddsratio_pooled 2.370967741935484,
    // oddsratio_pooled_confint (1.0067717415804565, 5.583676816826314).
    let (ratio, interval) = mantel_haenszel(&[[10.0, 20.0, 5.0, 25.0], [15.0, 10.0, 8.0, 12.0]]);
    assert!((ratio.unwrap() - 2.370967741935484).abs() < 1e-12);
    let [lo, hi] = interval.unwrap();
    assert!((lo - 1.0067717415804565).abs() < 1e-9, "{lo}");
    assert!((hi - 5.583676816826314).abs() < 1e-9, "{hi}");
    // No discordance on one side: undefined, never infinite.
    assert_eq!(mantel_haenszel(&[[3.0, 0.0, 0.0, 2.0]]), (None, None));
}

/// Three problems; each p_top asked 4 times, each ablation 4 times.
fn run() -> (BTreeMap<String, Variant>, Vec<(String, bool)>) {
    let mut variants = BTreeMap::new();
    let mut cells = Vec::new();
    // (problem, p_top passes, ablate_2.3 passes, ablate_1.3 passes)
    for (p, top, edge, input) in [("a", 4, 0, 4), ("b", 4, 1, 3), ("c", 3, 3, 3)] {
        let mut add = |name: &str, v: Variant, passes: usize, n: usize| {
            let id = format!("{p}.{name}");
            variants.insert(id.clone(), v);
            for i in 0..n {
                cells.push((id.clone(), i < passes));
            }
        };
        add("p_bot", variant(p, Strategy::PBot, None, &[]), 0, 1);
        add(
            "summary_10w",
            variant(p, Strategy::Summary, Some(10.0), &["1.1"]),
            0,
            1,
        );
        add(
            "summary_200w",
            variant(
                p,
                Strategy::Summary,
                Some(200.0),
                if p == "a" { &["1.1", "2.3"] } else { &["1.1"] },
            ),
            1,
            1,
        );
        add(
            "p_top",
            variant(p, Strategy::PTop, None, &["1.1", "1.3", "2.3"]),
            top,
            4,
        );
        add("ablate_2.3", ablation(p, "2.3", &["1.1", "1.3"]), edge, 4);
        add("ablate_1.3", ablation(p, "1.3", &["1.1", "2.3"]), input, 4);
    }
    (variants, cells)
}

fn results() -> ThemeResults {
    let (variants, cells) = run();
    theme_results(&variants, cells.iter().map(|(i, p)| (i.as_str(), *p))).unwrap()
}

#[test]
fn shares_count_each_levels_descriptions() {
    let r = results();
    let levels: Vec<&str> = r.shares.keys().map(String::as_str).collect();
    assert_eq!(levels, ["summary_10w", "summary_200w", "p_top"]);
    assert_eq!(r.shares["summary_200w"]["2.3"], 0.3333);
    assert_eq!(r.shares["summary_200w"]["1.1"], 1.0);
    assert_eq!(r.shares["p_top"]["1.3"], 1.0);
    assert_eq!(r.shares["p_top"].len(), 20);
    assert_eq!(r.descriptions["p_top"], 3);
    assert_eq!(r.top[0], "1.1");
    // From the shortest summary to p_top, 1.3 and 2.3 rise by 1.
    let grown: Vec<(&str, &str, f64, f64)> = r
        .growing
        .iter()
        .map(|g| (g.theme.as_str(), g.from_level.as_str(), g.from, g.to))
        .collect();
    assert_eq!(
        grown,
        [
            ("1.3", "summary_10w", 0.0, 1.0),
            ("2.3", "summary_10w", 0.0, 1.0)
        ]
    );
}

#[test]
fn an_ablations_effect_is_the_paired_difference_over_problems() {
    let r = results();
    let edge = r.ablations.iter().find(|a| a.theme == "2.3").unwrap();
    // p_top: (1 + 1 + 0.75) / 3; ablated: (0 + 0.25 + 0.75) / 3.
    assert_eq!(edge.problems, 3);
    assert_eq!(edge.p_top, round_to(2.75 / 3.0, 4));
    assert_eq!(edge.ablated, round_to(1.0 / 3.0, 4));
    assert_eq!(edge.effect, round_to(1.75 / 3.0, 4));
    // Differences 1, 0.75, 0: the bootstrap's extremes bound it.
    let [lo, hi] = edge.interval.unwrap();
    assert!(
        0.0 <= lo && lo < edge.effect && edge.effect < hi && hi <= 1.0,
        "{lo} {hi}"
    );
    // a: 4/4 against 0/4 is beyond noise (Fisher p = 2/70); b: 4/4 against 1/4 is not.
    assert_eq!(edge.beyond_noise.len(), 1);
    assert_eq!(edge.beyond_noise[0].problem, "a");
    assert_eq!(edge.beyond_noise[0].p_value, round_to(2.0 / 70.0, 4));
    let input = r.ablations.iter().find(|a| a.theme == "1.3").unwrap();
    assert_eq!(input.effect, round_to((0.0 + 0.25 + 0.0) / 3.0, 4));
    assert!(input.beyond_noise.is_empty());
}

#[test]
fn the_association_compares_within_problems() {
    let r = results();
    let edge = r.associations.iter().find(|a| a.theme == "2.3").unwrap();
    // Every case is labeled: 3 x (1 + 1 + 1 + 4 + 4 + 4).
    assert_eq!(edge.cases, 45);
    assert_eq!(edge.strata, 3);
    // Tables by hand (with 2.3: p_top, ablate_1.3, a's summary_200w):
    // a [9, 0, 0, 6], b [7, 1, 2, 5], c [6, 2, 4, 3].
    // statsmodels 0.15 StratifiedTable of those: 10.7, (2.77090, 41.31878).
    assert_eq!(edge.odds_ratio, Some(10.7));
    assert_eq!(edge.interval, Some([2.7709, 41.3188]));
    // 1.1 is in every description but p_bot: p_bot's one case per problem.
    let goal = r.associations.iter().find(|a| a.theme == "1.1").unwrap();
    assert_eq!(goal.with_theme, 42);
}

#[test]
fn a_run_without_labels_has_no_theme_figures() {
    let (mut variants, cells) = run();
    for v in variants.values_mut() {
        v.themes = None;
    }
    assert!(theme_results(&variants, cells.iter().map(|(i, p)| (i.as_str(), *p))).is_none());
}
