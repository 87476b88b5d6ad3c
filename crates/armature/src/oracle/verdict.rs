//! What the oracle finds ([`Verdict`]) and how a pipeline's answer is
//! judged against the clearance contract ([`Judgement`],
//! [`Oracle::judge_verdict`]).

// `!(x <= y)` is the idiom for "not at most, or NaN": a NaN time or
// distance must land on the defect side.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use armature_conservative_advance::{CcdReport, CcdStatus, Other};

use super::Oracle;
use super::grid::{Piece, Sampler};
use crate::Error;

/// What the oracle found on a motion, against the clearances
/// `c_p = min(δ, d_p(0) / 3)` of the [module docs](super).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Some pair provably breaks its clearance: `d_p(t) < c_p` (less the
    /// tolerance) at `bracket.1`, or the surfaces meet while `c_p > 0`.
    Collides {
        /// `(t_free, t_violating)`: no pair breaks its clearance at
        /// `t_free`, some pair does at `t_violating`; the first violation
        /// is at most `t_violating`. `(0, 0)` when some pair has
        /// `d_p(0) = 0` (the surfaces meet, or one closed mesh contains the
        /// other).
        bracket: (f64, f64),
        /// A pair breaking its clearance at `t_violating`: the link and
        /// what it comes too close to.
        pair: (usize, Other),
    },
    /// Every pair provably stays above `2c_p` (plus the tolerance) over
    /// the whole motion: only [`CcdStatus::Free`] (or
    /// [`CcdStatus::BudgetExhausted`]) is right.
    Free {
        /// The smallest distance evaluated (with skipping, far samples are
        /// not evaluated, and far pairs may be bounded rather than
        /// measured in [`super::Mode::Independent`]).
        min_distance: f64,
    },
    /// No pair breaks its clearance (refinement bounds every pair above
    /// `c_p` less the tolerance), but some may come within `2c_p`: either
    /// answer is accepted.
    Graze {
        /// The smallest distance evaluated.
        min_distance: f64,
    },
    /// A sample or refinement budget ran out before a decision.
    Inconclusive {
        /// No pair breaks its clearance up to this time (`0` when the
        /// grid itself is beyond the budget).
        reached: f64,
        /// Sample times visited.
        samples: usize,
    },
}

impl Verdict {
    /// Whether the oracle proved a clearance violation.
    #[must_use]
    pub const fn collides(&self) -> bool {
        matches!(self, Self::Collides { .. })
    }

    /// A time at which the oracle proved a violation (the bracket's upper
    /// end), if it did.
    #[must_use]
    pub const fn colliding_time(&self) -> Option<f64> {
        match self {
            Self::Collides { bracket, .. } => Some(bracket.1),
            _ => None,
        }
    }

    /// A short name (`collides at start`, `collides`, `free`, `graze`,
    /// `inconclusive`), for tables and counts.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Collides { bracket, .. } if bracket.1 == 0.0 => "collides at start",
            Self::Collides { .. } => "collides",
            Self::Free { .. } => "free",
            Self::Graze { .. } => "graze",
            Self::Inconclusive { .. } => "inconclusive",
        }
    }

    /// Whether two verdicts on the same motion (for example of the two
    /// [`super::Mode`]s) can both be right: a proven violation contradicts
    /// a proof that every pair stays above its clearance ([`Verdict::Free`]
    /// or [`Verdict::Graze`]), a contact at the start contradicts any other
    /// finding, and two violations must be proven within `step` (a grid
    /// step) of each other. An inconclusive verdict contradicts nothing.
    #[must_use]
    pub fn compatible(&self, other: &Self, step: f64) -> bool {
        match (self, other) {
            (Self::Inconclusive { .. }, _) | (_, Self::Inconclusive { .. }) => true,
            (Self::Collides { bracket: a, .. }, Self::Collides { bracket: b, .. }) => {
                (a.1 == 0.0) == (b.1 == 0.0) && (a.1 - b.1).abs() <= step
            }
            (Self::Collides { .. }, _) | (_, Self::Collides { .. }) => false,
            _ => true,
        }
    }
}

/// Work done for one verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OracleStats {
    /// Grid intervals `n` (samples at `k / n`, `k = 0..=n`).
    pub grid: u64,
    /// Sample times visited (some pair evaluated there, `t = 0`
    /// included).
    pub samples: usize,
    /// Pair evaluations at sample times.
    pub pair_tests: usize,
    /// Pair evaluations refining gaps around grazes.
    pub refinement_tests: usize,
    /// Pair evaluations during bisection.
    pub bisection_tests: usize,
}

/// A pipeline answer compared with the oracle's verdict against the
/// clearance contract ([`Oracle::judge_verdict`]). The defects are
/// [`Judgement::Missed`], [`Judgement::Late`], [`Judgement::FalseAlarm`],
/// [`Judgement::FalseStart`], [`Judgement::MissedStart`] and
/// [`Judgement::FarContact`] ([`Judgement::is_defect`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Judgement {
    /// The answer keeps the contract where the oracle can tell.
    Agrees,
    /// The motion comes within `2c_p` of some pair without provably
    /// breaking a clearance: either answer is accepted.
    Graze,
    /// The oracle could not decide within its budget.
    Inconclusive,
    /// The report says free, the oracle proved a pair closer than its
    /// clearance.
    Missed {
        /// A time at which a pair breaks its clearance.
        oracle_toc: f64,
    },
    /// The report's [`CcdReport::toc_lower_bound`] is later than a time at
    /// which the oracle proved a pair closer than its clearance.
    Late {
        /// The report's lower bound.
        reported: f64,
        /// The oracle's violation time.
        oracle_toc: f64,
    },
    /// The report says [`CcdStatus::Collides`] or
    /// [`CcdStatus::CollidingAtStart`] on a motion where the oracle proves
    /// every pair above `2c_p` throughout.
    FalseAlarm {
        /// The report's time of contact.
        reported: f64,
        /// The smallest distance the oracle evaluated.
        min_distance: f64,
    },
    /// The report says [`CcdStatus::CollidingAtStart`] but no pair has
    /// `d_p(0) = 0` (within the contact tolerance).
    FalseStart {
        /// The smallest `d_p(0)` over the tested pairs.
        min_distance: f64,
    },
    /// Some pair has `d_p(0) = 0` (the surfaces meet, or a closed mesh
    /// contains the other) but the report is not
    /// [`CcdStatus::CollidingAtStart`].
    MissedStart {
        /// The pair: the link and what it touches.
        pair: (usize, Other),
    },
    /// The witness pair's distance at the reported contact time is above
    /// `2c_{p*}` (plus the contact tolerance).
    FarContact {
        /// The reported contact time.
        time: f64,
        /// The witness pair's distance then (a lower bound when above the
        /// allowed distance; NaN for a time outside `[0, 1]` or a witness
        /// that names no mesh).
        distance: f64,
        /// The largest distance accepted, `2c_{p*}` plus the tolerance.
        allowed: f64,
    },
}

impl Judgement {
    /// Whether the pipeline's answer breaks the contract.
    #[must_use]
    pub const fn is_defect(&self) -> bool {
        matches!(
            self,
            Self::Missed { .. }
                | Self::Late { .. }
                | Self::FalseAlarm { .. }
                | Self::FalseStart { .. }
                | Self::MissedStart { .. }
                | Self::FarContact { .. }
        )
    }

    /// A short name (`agrees`, `graze`, `inconclusive`, `missed`, `late`,
    /// `false_alarm`, `false_start`, `missed_start`, `far_contact`), for
    /// tables and counts.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            Self::Agrees => "agrees",
            Self::Graze => "graze",
            Self::Inconclusive => "inconclusive",
            Self::Missed { .. } => "missed",
            Self::Late { .. } => "late",
            Self::FalseAlarm { .. } => "false_alarm",
            Self::FalseStart { .. } => "false_start",
            Self::MissedStart { .. } => "missed_start",
            Self::FarContact { .. } => "far_contact",
        }
    }
}

impl Oracle {
    /// Compares a pipeline's answer on `q0 → q1` with the oracle's verdict
    /// (computed here; see [`Oracle::judge_verdict`] to reuse one).
    ///
    /// # Errors
    /// As [`Oracle::verdict`].
    pub fn judge(&self, report: &CcdReport, q0: &[f64], q1: &[f64]) -> Result<Judgement, Error> {
        let verdict = self.verdict(q0, q1)?;
        self.judge_verdict(report, &verdict, q0, q1)
    }

    /// Compares a pipeline's answer on `q0 → q1` with `verdict` (the
    /// oracle's on the same motion, with these options) against the
    /// clearance contract. In order:
    ///
    /// 1. the start: [`CcdStatus::CollidingAtStart`] needs some pair with
    ///    `d_p(0)` within the contact tolerance of 0, else
    ///    [`Judgement::FalseStart`]; any other status while some pair has
    ///    `d_p(0) = 0` is [`Judgement::MissedStart`];
    /// 2. on [`Verdict::Collides`]: a free report is
    ///    [`Judgement::Missed`]; a [`CcdReport::toc_lower_bound`] after
    ///    the violation time is [`Judgement::Late`];
    /// 3. on [`Verdict::Free`]: [`CcdStatus::Collides`] or
    ///    [`CcdStatus::CollidingAtStart`] is [`Judgement::FalseAlarm`]
    ///    ([`CcdStatus::BudgetExhausted`] only says "may collide" and is
    ///    accepted);
    /// 4. a contact whose witness pair `p*` is farther than `2c_{p*}` plus
    ///    the tolerance at the contact time is [`Judgement::FarContact`];
    /// 5. otherwise [`Judgement::Inconclusive`] for an inconclusive
    ///    verdict, [`Judgement::Graze`] for a graze, [`Judgement::Agrees`].
    ///
    /// # Errors
    /// As [`Oracle::verdict`] (the start and the contact are measured
    /// here).
    pub fn judge_verdict(
        &self,
        report: &CcdReport,
        verdict: &Verdict,
        q0: &[f64],
        q1: &[f64],
    ) -> Result<Judgement, Error> {
        let tol = self.options.contact_tolerance;
        let reported = report.toc_lower_bound;
        let mut s = Sampler::new(self, q0, q1)?;
        let start = s.start()?;
        let min_start = start
            .iter()
            .map(|s| s.distance)
            .fold(f64::INFINITY, f64::min);
        if report.status == CcdStatus::CollidingAtStart {
            if !(min_start <= tol) {
                return Ok(Judgement::FalseStart {
                    min_distance: min_start,
                });
            }
        } else if let Some(p) = start.iter().position(|s| s.touching) {
            let pair = self.pairs[p];
            return Ok(Judgement::MissedStart {
                pair: (pair.link, pair.other),
            });
        }
        let mut graze = false;
        match *verdict {
            Verdict::Collides { bracket, .. } => {
                let oracle_toc = bracket.1;
                if report.status == CcdStatus::Free {
                    return Ok(Judgement::Missed { oracle_toc });
                }
                // `!(≤)` also flags a NaN time.
                if !(reported <= oracle_toc) {
                    return Ok(Judgement::Late {
                        reported,
                        oracle_toc,
                    });
                }
            }
            Verdict::Free { min_distance } => {
                if matches!(
                    report.status,
                    CcdStatus::Collides | CcdStatus::CollidingAtStart
                ) {
                    return Ok(Judgement::FalseAlarm {
                        reported,
                        min_distance,
                    });
                }
            }
            Verdict::Graze { .. } => graze = true,
            Verdict::Inconclusive { .. } => {}
        }
        if let Some(c) = report.contact {
            let time = c.time;
            let (a, b) = match c.other {
                Other::Link(j) => (Piece::Link(c.link.min(j)), Piece::Link(c.link.max(j))),
                Other::Obstacle(o) => (Piece::Link(c.link), Piece::Obstacle(o)),
            };
            let measured = if (0.0..=1.0).contains(&time) {
                self.witness_distance(&mut s, a, b, time)
            } else {
                None
            };
            let (distance, allowed) = measured.unwrap_or((f64::NAN, f64::NAN));
            if !(distance <= allowed) {
                return Ok(Judgement::FarContact {
                    time,
                    distance,
                    allowed,
                });
            }
        }
        Ok(match verdict {
            Verdict::Inconclusive { .. } => Judgement::Inconclusive,
            _ if graze => Judgement::Graze,
            _ => Judgement::Agrees,
        })
    }

    /// The witness pair's contract distance at `time` and the largest one
    /// accepted, `2c + tol`; `None` when the pair names no mesh.
    fn witness_distance(
        &self,
        s: &mut Sampler<'_>,
        a: Piece,
        b: Piece,
        time: f64,
    ) -> Option<(f64, f64)> {
        let tol = self.options.contact_tolerance;
        s.pose(0.0).ok()?;
        let d0 = s
            .pieces_distance(a, b, 3.0 * self.threshold + tol)
            .ok()?
            .distance;
        let allowed = 2.0 * self.threshold.min(d0 / 3.0) + tol;
        s.pose(time).ok()?;
        let d = s.pieces_distance(a, b, allowed).ok()?.distance;
        Some((d, allowed))
    }
}
