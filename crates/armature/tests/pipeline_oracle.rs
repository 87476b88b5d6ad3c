//! The pipeline against the brute-force oracle on the
//! fixture scenes: seeded random motions within the joint limits, every
//! broad phase with and without temporal culling, judged by the clearance
//! contract (`armature::oracle`). No answer may miss a clearance
//! violation, report a time of contact after the oracle's violation time,
//! report a collision on a motion the oracle proves to stay above twice
//! every clearance, get the start wrong, or name a witness farther than
//! twice its clearance. The pipeline's answers are
//! also those of the conservative-advancement crate called directly.

use std::collections::BTreeMap;
use std::f64::consts::PI;

use armature::advance::{CcdWorkspace, first_contact};
use armature::geometry::query::FeaturePair;
use armature::oracle::{Mode, Oracle, OracleOptions, Verdict};
use armature::{BroadPhase, CcdReport, CcdStatus, ExactStage, Pipeline, Scene};

fn fixture(name: &str) -> Scene {
    Scene::from_file(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture scene loads")
}

/// A tiny xorshift generator: fixed seeds, the same motions everywhere.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

/// Each configuration value's range: the joint's limits, `[−π, π]` for a
/// joint without.
fn limits(scene: &Scene) -> Vec<(f64, f64)> {
    let mut out = vec![(-PI, PI); scene.nq()];
    for j in scene.joints() {
        for k in j.q.clone() {
            out[k] = j.limits.unwrap_or((-PI, PI));
        }
    }
    out
}

/// A benchmark query: `q0` uniform within the limits (in
/// collision or not), `q1 = q0 + δq`, each `δq_k` uniform in
/// `[−θmax, θmax]`, clamped to the limits.
fn random_motion(rng: &mut Rng, limits: &[(f64, f64)], theta_max: f64) -> (Vec<f64>, Vec<f64>) {
    let q0: Vec<f64> = limits.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
    let q1 = q0
        .iter()
        .zip(limits)
        .map(|(&q, &(lo, hi))| (q + rng.uniform(-theta_max, theta_max)).clamp(lo, hi))
        .collect();
    (q0, q1)
}

/// `q0 + s (q1 − q0)`: the configuration at time `s` (the fixtures' joints
/// are revolute and continuous, interpolated linearly).
fn lerp(q0: &[f64], q1: &[f64], s: f64) -> Vec<f64> {
    q0.iter().zip(q1).map(|(a, b)| a + s * (b - a)).collect()
}

/// Every broad phase, with and without temporal culling; and the
/// elementary stage (M1) with and without its stage 1.
fn pipelines() -> Vec<(String, Pipeline)> {
    let mut out = Vec::new();
    for broad in [
        BroadPhase::Taylor,
        BroadPhase::Interval,
        BroadPhase::BySwing,
        BroadPhase::Chords,
    ] {
        for culling in [true, false] {
            let p = Pipeline::builder()
                .broad_phase(broad)
                .temporal_culling(culling)
                .build()
                .expect("pipeline builds");
            out.push((format!("{broad:?}, culling {culling}"), p));
        }
    }
    for hierarchy in [true, false] {
        let p = Pipeline::builder()
            .exact_stage(ExactStage::Elementary)
            .hierarchy_culling(hierarchy)
            .build()
            .expect("pipeline builds");
        out.push((format!("elementary, stage 1 {hierarchy}"), p));
    }
    out
}

/// What a run saw, for the coverage checks.
#[derive(Default, Debug)]
struct Tally {
    verdicts: BTreeMap<&'static str, usize>,
    judgements: BTreeMap<&'static str, usize>,
    statuses: BTreeMap<String, usize>,
}

/// Checks one motion with every pipeline against one verdict; returns the
/// verdict.
fn check_motion(
    scene: &Scene,
    oracle: &Oracle,
    pipelines: &[(String, Pipeline)],
    q0: &[f64],
    q1: &[f64],
    tally: &mut Tally,
) -> Verdict {
    let verdict = oracle.verdict(q0, q1).expect("oracle runs");
    let kind = verdict.name();
    *tally.verdicts.entry(kind).or_default() += 1;
    let mut reports = Vec::with_capacity(pipelines.len());
    for (name, p) in pipelines {
        let r = p.first_contact(scene, q0, q1).expect("query runs");
        let j = oracle
            .judge_verdict(&r, &verdict, q0, q1)
            .expect("judge runs");
        assert!(
            !j.is_defect(),
            "{name}: {q0:?} → {q1:?}: {j:?}\nreport {r:?}\nverdict {verdict:?}"
        );
        *tally.judgements.entry(j.name()).or_default() += 1;
        *tally.statuses.entry(format!("{:?}", r.status)).or_default() += 1;
        // Both sides use the same touching test at t = 0.
        let at_start = kind == "collides at start";
        assert_eq!(
            r.status == CcdStatus::CollidingAtStart,
            at_start,
            "{name}: {q0:?} → {q1:?}: {r:?} vs {verdict:?}"
        );
        if at_start {
            assert_eq!(r.toc_lower_bound, 0.0);
        }
        if let Some(c) = r.contact {
            assert!(c.time == r.toc_lower_bound, "{name}: {r:?}");
            assert!(
                c.distance <= 2.0 * scene.distance_threshold(),
                "{name}: {r:?}"
            );
            assert!(scene.link_name(c.link).is_some());
            assert!(scene.other_name(c.other).is_some());
            check_features(scene, &c, name);
        }
        reports.push((name, p, r));
    }
    // Temporal culling changes neither the status nor the time.
    for pair in reports.chunks(2) {
        let [(name, a, ra), (_, b, rb)] = pair else {
            continue;
        };
        assert_eq!(a.broad_phase(), b.broad_phase());
        assert_eq!(ra.status, rb.status, "{name}: {q0:?} → {q1:?}");
        assert!(
            (ra.toc_lower_bound - rb.toc_lower_bound).abs() <= 1e-12,
            "{name}: {} vs {}",
            ra.toc_lower_bound,
            rb.toc_lower_bound
        );
    }
    verdict
}

/// The elementary stage's features belong to the contact's triangles: the
/// vertex to one, the face to the other, each edge to its triangle.
fn check_features(scene: &Scene, c: &armature::Contact, name: &str) {
    let Some(f) = c.features else { return };
    let link_mesh = &scene.body().links()[c.link]
        .as_ref()
        .expect("a contact's link has geometry")
        .mesh;
    let other_mesh = match c.other {
        armature::Other::Link(j) => {
            &scene.body().links()[j]
                .as_ref()
                .expect("a contact's link has geometry")
                .mesh
        }
        armature::Other::Obstacle(o) => &scene.obstacles()[o].geometry().mesh,
    };
    let ta = link_mesh.indices()[c.triangle_a as usize];
    let tb = other_mesh.indices()[c.triangle_b as usize];
    let ok = match f {
        FeaturePair::VertexFace { vertex, triangle } => {
            ta.contains(&vertex) && triangle == c.triangle_b
        }
        FeaturePair::FaceVertex { triangle, vertex } => {
            tb.contains(&vertex) && triangle == c.triangle_a
        }
        FeaturePair::EdgeEdge { edge_a, edge_b } => {
            edge_a.iter().all(|v| ta.contains(v)) && edge_b.iter().all(|v| tb.contains(v))
        }
    };
    assert!(
        ok,
        "{name}: features {f:?} outside the triangles {ta:?} / {tb:?}"
    );
}

/// Random motions on `scene` at several swing sizes, then, for some of the
/// colliding ones, the motion cut just after the oracle's colliding time
/// (so that it collides only at its very end, `t ≈ 1`).
fn run_scene(file: &str, seed: u64, motions: usize) -> Tally {
    let scene = fixture(file);
    let oracle = Oracle::new(&scene, OracleOptions::default()).expect("oracle builds");
    let brute = Oracle::new(
        &scene,
        OracleOptions::default().with_mode(Mode::Independent),
    )
    .expect("oracle builds");
    let pipelines = pipelines();
    let limits = limits(&scene);
    let mut rng = Rng(seed);
    let mut tally = Tally::default();
    let mut cut = 0;
    for i in 0..motions {
        let theta_max = [0.1, 0.5, 1.0][i % 3];
        let (q0, q1) = random_motion(&mut rng, &limits, theta_max);
        let v = check_motion(&scene, &oracle, &pipelines, &q0, &q1, &mut tally);
        if i % 8 == 0 {
            // A subset is cross-checked by the independent mode, which
            // shares no geometry with the pipeline.
            let b = brute.verdict(&q0, &q1).expect("oracle runs");
            let h = 1.0 / oracle.grid(&q0, &q1).expect("oracle runs") as f64;
            assert!(
                v.compatible(&b, h),
                "{q0:?} → {q1:?}: {v:?} vs independent {b:?}"
            );
            *tally.verdicts.entry("cross-checked").or_default() += 1;
        }
        if let Verdict::Collides {
            bracket: (free, colliding),
            ..
        } = v
            && colliding > 0.0
            && cut < motions / 10
        {
            // At the oracle's colliding time some pair is proven closer
            // than its clearance; a little past it (by far more than
            // rounding) the motion cut there breaks that clearance at its
            // very end, and not before the scaled first violation.
            let end = (colliding + 1e-6).min(1.0);
            let q_end = lerp(&q0, &q1, end);
            let w = check_motion(&scene, &oracle, &pipelines, &q0, &q_end, &mut tally);
            let t = w
                .colliding_time()
                .expect("the cut motion breaks a clearance");
            assert!(t >= free / end - 1e-9 && t <= 1.0, "{w:?}");
            let d_end = oracle.distance_at(&q0, &q_end, 1.0).expect("oracle runs");
            assert!(
                d_end <= scene.distance_threshold(),
                "{d_end} at the end of {w:?}"
            );
            cut += 1;
        }
    }
    assert!(cut > 0, "no colliding motion to cut");
    tally
}

/// Each verdict kind and each interesting status appears.
fn assert_coverage(tally: &Tally) {
    println!("{tally:#?}");
    for kind in ["collides at start", "collides", "free"] {
        assert!(
            tally.verdicts.get(kind).copied().unwrap_or(0) > 0,
            "no `{kind}` verdict: {tally:?}"
        );
    }
    for status in ["CollidingAtStart", "Collides", "Free"] {
        assert!(
            tally.statuses.get(status).copied().unwrap_or(0) > 0,
            "no `{status}` report: {tally:?}"
        );
    }
}

#[test]
fn two_arms_with_self_collision_never_miss() {
    let tally = run_scene("cell.ron", 0x00c0_ffee, 120);
    assert_coverage(&tally);
}

#[test]
fn single_arm_never_misses() {
    let tally = run_scene("single.ron", 0x0005_eed5, 120);
    assert_coverage(&tally);
}

#[test]
fn a_coarser_threshold_is_judged_by_it() {
    let scene = fixture("single.ron");
    let threshold = 5e-3;
    let pipeline = Pipeline::builder()
        .distance_threshold(threshold)
        .build()
        .expect("pipeline builds");
    let oracle = Oracle::new(
        &scene,
        OracleOptions::default().with_distance_threshold(Some(threshold)),
    )
    .expect("oracle builds");
    let limits = limits(&scene);
    let mut rng = Rng(0x7e57);
    let mut collides = 0;
    for _ in 0..30 {
        let (q0, q1) = random_motion(&mut rng, &limits, 1.0);
        let r = pipeline
            .first_contact(&scene, &q0, &q1)
            .expect("query runs");
        let j = oracle.judge(&r, &q0, &q1).expect("judge runs");
        assert!(!j.is_defect(), "{q0:?} → {q1:?}: {j:?} for {r:?}");
        collides += usize::from(r.status == CcdStatus::Collides);
    }
    assert!(collides > 0);
}

/// Status, time, contact and counts of two reports.
fn assert_same_answer(what: &str, a: &CcdReport, b: &CcdReport) {
    assert_eq!(a.status, b.status, "{what}");
    assert_eq!(a.toc_lower_bound, b.toc_lower_bound, "{what}");
    assert_eq!(a.contact, b.contact, "{what}");
    let counts = |r: &CcdReport| {
        let s = r.stats;
        (
            s.pairs_total,
            s.pairs_after_spatial,
            s.pairs_after_temporal,
            s.ca_iterations,
            s.distance_calls,
        )
    };
    assert_eq!(counts(a), counts(b), "{what}");
}

#[test]
fn pipeline_answers_are_the_conservative_advancement_crates() {
    for (file, seed) in [("cell.ron", 0xa11ce_u64), ("single.ron", 0xb0b)] {
        let scene = fixture(file);
        let limits = limits(&scene);
        let mut rng = Rng(seed);
        let mut ws = CcdWorkspace::new();
        let mut statuses = BTreeMap::<String, usize>::new();
        for i in 0..40 {
            let (q0, q1) = random_motion(&mut rng, &limits, [0.2, 1.0][i % 2]);
            for (name, p) in pipelines() {
                if p.exact_stage() == ExactStage::Elementary {
                    let r = p.first_contact(&scene, &q0, &q1).expect("query runs");
                    let mut prepared = p.prepare(&scene).expect("scene prepares");
                    let direct = prepared
                        .first_contact_elementary(&q0, &q1)
                        .expect("direct query runs")
                        .expect("an elementary pipeline");
                    assert_eq!(r.toc_lower_bound, direct.toc_lower_bound, "{file}, {name}");
                    assert_eq!(
                        format!("{:?}", r.status),
                        format!("{:?}", direct.status),
                        "{file}, {name}"
                    );
                    continue;
                }
                let r = p.first_contact(&scene, &q0, &q1).expect("query runs");
                let direct = first_contact(
                    scene.body(),
                    scene.obstacles(),
                    scene.disabled_pairs(),
                    &q0,
                    &q1,
                    &p.ccd_options(&scene),
                    &mut ws,
                )
                .expect("direct query runs");
                assert_same_answer(&format!("{file}, {name}, motion {i}"), &r, &direct);
                *statuses.entry(format!("{:?}", r.status)).or_default() += 1;
            }
        }
        assert!(statuses.len() >= 2, "{file}: {statuses:?}");
    }
}

/// Pairs near the threshold keep the clearance contract, whatever the
/// spatial culling (the link boxes are widened by the threshold, so a pair
/// that may come within it is never culled). The arm rests 0.15 from the
/// crate in `single.ron`.
#[test]
fn pairs_within_the_threshold_are_not_culled() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let scene = armature::Scene::from_file(dir.join("single.ron")).unwrap();
    let q = vec![0.0; scene.nq()];
    let check = armature::Pipeline::builder()
        .build()
        .unwrap()
        .check(&scene, &q)
        .unwrap();
    assert!((check.distance - 0.15).abs() < 1e-9, "{}", check.distance);
    // Resting within 3δ keeps a third of the starting distance: free, and
    // the pair was not culled.
    for threshold in [0.2, 0.16, 0.14] {
        let p = armature::Pipeline::builder()
            .distance_threshold(threshold)
            .build()
            .unwrap();
        let r = p.first_contact(&scene, &q, &q).unwrap();
        assert_eq!(r.status, CcdStatus::Free, "threshold {threshold}: {r:?}");
        assert!(
            r.stats.pairs_after_spatial >= 1,
            "threshold {threshold}: {r:?}"
        );
    }
    // Towards the crate (it is hit at t ≈ 0.70 of this motion), stopping
    // 0.02 short of it: with δ = 0.04 the clearance is broken, never the
    // surfaces.
    let hit = [0.6, -1.0, 0.0];
    let pipeline = armature::Pipeline::builder()
        .distance_threshold(0.04)
        .build()
        .unwrap();
    let (mut lo, mut hi) = (0.0, 0.7);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        let d = pipeline
            .check(&scene, &lerp(&q, &hit, mid))
            .unwrap()
            .distance;
        if d > 0.02 { lo = mid } else { hi = mid }
    }
    let q1 = lerp(&q, &hit, lo);
    let r = pipeline.first_contact(&scene, &q, &q1).unwrap();
    assert_eq!(r.status, CcdStatus::Collides, "{r:?}");
    assert!(r.contact.unwrap().distance <= 0.08, "{r:?}");
    let oracle = Oracle::new(
        &scene,
        OracleOptions::default().with_distance_threshold(Some(0.04)),
    )
    .unwrap();
    let j = oracle.judge(&r, &q, &q1).unwrap();
    assert!(!j.is_defect(), "{j:?}");
}

/// M1's pipeline (stages 1+3) against the oracle on random motions of the
/// Puma in both benchmark scenes, at M1's angles: no miss, no late time,
/// no far witness; and the contact's witness is no nearer than the
/// oracle's closest pair at that time, and within twice the threshold.
#[test]
fn elementary_stage_never_misses_on_the_puma_scenes() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/scenes");
    for (file, angles, seed) in [
        ("puma_pipes.ron", &[5.0, 15.0, 30.0][..], 0x0e1e_u64),
        ("puma_amr.ron", &[30.0, 60.0][..], 0x0a3a),
    ] {
        let scene = Scene::from_file(data.join(file)).expect("benchmark scene loads");
        let oracle = Oracle::new(&scene, OracleOptions::default().with_mode(Mode::Fast))
            .expect("oracle builds");
        let pipeline = Pipeline::builder()
            .exact_stage(ExactStage::Elementary)
            .build()
            .expect("pipeline builds");
        let mut prepared = pipeline.prepare(&scene).expect("scene prepares");
        let limits = limits(&scene);
        let mut rng = Rng(seed);
        let mut statuses = BTreeMap::<String, usize>::new();
        for &angle in angles {
            for _ in 0..6 {
                // Free starts, as the suite draws them.
                let (q0, q1) = loop {
                    let m = random_motion(&mut rng, &limits, f64::to_radians(angle));
                    if !pipeline.collides(&scene, &m.0).expect("check runs") {
                        break m;
                    }
                };
                let r = prepared.first_contact(&q0, &q1).expect("query runs");
                let j = oracle.judge(&r, &q0, &q1).expect("judge runs");
                assert!(
                    !j.is_defect(),
                    "{file} {angle}°: {q0:?} → {q1:?}: {j:?}\n{r:?}"
                );
                if let Some(c) = r.contact {
                    check_features(&scene, &c, file);
                    let nearest = oracle.distance_at(&q0, &q1, c.time).expect("oracle runs");
                    assert!(
                        c.distance >= nearest - 1e-9
                            && c.distance <= 2.0 * scene.distance_threshold(),
                        "{file}: witness {} vs oracle {nearest}",
                        c.distance
                    );
                }
                *statuses.entry(format!("{:?}", r.status)).or_default() += 1;
            }
        }
        assert!(statuses.len() >= 2, "{file}: {statuses:?}");
    }
}
