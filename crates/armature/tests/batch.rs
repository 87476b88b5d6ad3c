//! Batch queries (docs/architecture.md, "Thread-safe and deterministic"): the
//! answers of `first_contact_batch` do not depend on the number of threads
//! and are those of single queries; a bad motion is an error that names
//! it, and the others are still answered.

use armature::{CcdReport, CcdStatus, Error, Pipeline, Scene};

mod common;
use common::motions;

fn fixture(name: &str) -> Scene {
    Scene::from_file(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture scene loads")
}

/// Everything of a report but the measured times.
fn answer(r: &CcdReport) -> impl PartialEq + std::fmt::Debug {
    let s = r.stats;
    (
        r.status,
        r.contact,
        r.toc_lower_bound,
        [
            s.pairs_total,
            s.pairs_after_spatial,
            s.pairs_after_temporal,
            s.ca_iterations,
            s.distance_calls,
        ],
    )
}

fn pipeline(threads: Option<usize>) -> Pipeline {
    let b = Pipeline::builder();
    match threads {
        Some(n) => b.threads(n),
        None => b,
    }
    .build()
    .expect("pipeline builds")
}

#[test]
fn answers_do_not_depend_on_the_thread_count() {
    let scene = fixture("cell.ron");
    let motions = motions(&scene, 0xba7c4, 100);
    let one = pipeline(Some(1));
    let batches: Vec<Vec<Result<CcdReport, Error>>> = [Some(1), Some(4), None]
        .into_iter()
        .map(|t| {
            pipeline(t)
                .first_contact_batch(&scene, &motions)
                .expect("batch runs")
        })
        .collect();
    let mut colliding = 0;
    for (i, (q0, q1)) in motions.iter().enumerate() {
        let single = one.first_contact(&scene, q0, q1).expect("query runs");
        for (b, batch) in batches.iter().enumerate() {
            let r = batch[i].as_ref().expect("motion answered");
            assert_eq!(answer(r), answer(&single), "batch {b}, motion {i}");
        }
        colliding += usize::from(single.may_collide());
    }
    // Both kinds of answer are exercised.
    assert!(
        colliding > 10 && colliding < 90,
        "{colliding} of 100 collide"
    );
}

#[test]
fn a_bad_motion_is_named_and_the_others_answered() {
    let scene = fixture("single.ron");
    let mut motions = motions(&scene, 0xbad, 12);
    motions[3].0.pop();
    motions[7].1[1] = f64::NAN;
    for threads in [1, 4] {
        let results = pipeline(Some(threads))
            .first_contact_batch(&scene, &motions)
            .expect("batch runs");
        assert_eq!(results.len(), motions.len());
        for (i, r) in results.iter().enumerate() {
            match (i, r) {
                (3, Err(Error::Configuration { which, .. })) => {
                    assert_eq!(which, "motions[3].q0");
                }
                (7, Err(Error::Configuration { which, message })) => {
                    assert_eq!(which, "motions[7].q1");
                    assert!(message.contains("arm/elbow"), "{message}");
                }
                (3 | 7, r) => panic!("motion {i}: {r:?}"),
                (_, r) => assert!(r.is_ok(), "motion {i}: {r:?}"),
            }
        }
    }
    let e = pipeline(Some(2))
        .first_contact_batch(&scene, &motions)
        .expect("batch runs")
        .swap_remove(3)
        .expect_err("short configuration");
    assert!(e.to_string().contains("motions[3].q0"), "{e}");
}

#[test]
fn an_empty_batch_is_empty() {
    let scene = fixture("single.ron");
    let results = pipeline(Some(4))
        .first_contact_batch(&scene, &[])
        .expect("batch runs");
    assert!(results.is_empty());
}

#[test]
fn a_colliding_start_is_reported_in_a_batch() {
    let scene = fixture("cell.ron");
    let motions = motions(&scene, 0x5747, 40);
    let results = pipeline(Some(4))
        .first_contact_batch(&scene, &motions)
        .expect("batch runs");
    let at_start = results
        .iter()
        .filter(|r| matches!(r, Ok(r) if r.status == CcdStatus::CollidingAtStart && r.toc_lower_bound == 0.0))
        .count();
    assert!(at_start > 0);
}
