//! Query options.

use armature_kinematics::EnclosureKind;

use crate::CcdError;

/// Options of [`first_contact`](crate::first_contact), with [`Default`] and
/// `with_*` builders.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdOptions {
    /// The clearance `δ` (scene units) a free motion keeps between every
    /// pair; a contact is reported once a pair is within `2δ`. A pair that
    /// starts closer than `3δ` is held to a third of its starting distance
    /// instead. The full contract is on [`CcdReport`](crate::CcdReport).
    /// Must be finite and positive, and at least
    /// [`MIN_RELATIVE_THRESHOLD`](crate::advance::MIN_RELATIVE_THRESHOLD)
    /// times the scene's extent (checked per query). Default `1e-4` (0.1 mm
    /// for scenes in metres): absolute, so scale it with the scene.
    pub distance_threshold: f64,
    /// Conservative-advancement iterations per pair before the pair is
    /// given up with a lower bound on its time of contact
    /// ([`CcdStatus::BudgetExhausted`](crate::CcdStatus::BudgetExhausted)).
    /// At least 1. Default 200.
    pub max_ca_iterations_per_pair: usize,
    /// Pose enclosure of the dynamic link hierarchy. Default
    /// [`EnclosureKind::Chords`]: each link's boxes at the ends of pieces
    /// of the motion, joined and grown by its acceleration bound (on the
    /// Puma scenes tighter than Taylor models (M4 §5) and a tenth of
    /// their cost).
    pub enclosure: EnclosureKind,
    /// Temporal culling (M4 §7, Alg. 1). Default `true`. Does not change
    /// the time of contact.
    pub temporal_culling: bool,
    /// Test non-adjacent links against each other. Default `true`.
    pub self_collision: bool,
    /// Skip adjacent links: a parent and its child, or two rigid groups
    /// (links welded by fixed joints) joined by one movable joint
    /// ([`LinkGroups::adjacent`](armature_bvh_geometry::LinkGroups::adjacent)).
    /// Default `true`.
    pub skip_adjacent: bool,
    /// Path-validity mode: stop at the first pair found in contact (its
    /// time is a contact of the motion, not necessarily the first one; the
    /// report's lower bound still bounds the first). Default `false`.
    pub early_out: bool,
    /// Relative error `ε` of the distances that drive the advancement, in
    /// `[0, 0.9]`: each step uses the certified lower bound `d̃ / (1 + ε)`
    /// of an approximate distance `d̃` (an actual triangle pair's
    /// distance, `d ≤ d̃ ≤ (1 + ε) d`), which prunes far more of the
    /// hierarchies than the exact distance; steps are at most `1 + ε`
    /// times shorter. `0` computes exact distances. Default `0.5`. With
    /// projected bounds it is the C2A steps' relative error, except on
    /// small motions, whose steps are exact (see the
    /// [`advance`](crate::advance) module).
    pub distance_relative_error: f64,
    /// Advance on motion bounds projected per pair of convex volumes (C2A):
    /// each step is the smallest over a front of the two RSS trees of
    /// `(g − c) / μ_n`, with `g` a volume or triangle pair's gap along its
    /// closest direction `n` and `μ_n` the closing speed along `n` of
    /// points within the piece's reach, so tangential passes take few, long
    /// steps. `false` uses one unprojected speed bound per link pair (the
    /// speed of every point of the link; M4's bound without `n`), as
    /// before. Default `true`. Both keep the same contract.
    pub projected_motion_bound: bool,
    /// Temporal culling on pieces of the motion (M1 §5.1.1's time
    /// sub-intervals applied to the swept boxes): the link boxes are also
    /// enclosed over `2^r` equal pieces of `[0, 1]`, with `r` chosen from
    /// the motion's swing (0 for small motions, at most
    /// [`MAX_PIECE_LEVELS`](crate::advance::MAX_PIECE_LEVELS)). A pair
    /// whose boxes meet on no piece is culled, and one whose boxes first
    /// meet on piece `k` starts advancing at `k / 2^r` without a distance
    /// at the start (its boxes, widened by `3δ`, show it more than `3δ`
    /// apart before). The answer's contract is the same. Default `false`:
    /// on the Puma scenes at 30° most pairs' boxes already meet on the
    /// first piece, and the pieces' enclosures cost more than they save
    /// (7–29 % more instructions, 2–8 pieces; see docs/benchmarks.md).
    pub time_pieces: bool,
}

impl Default for CcdOptions {
    fn default() -> Self {
        Self {
            distance_threshold: 1e-4,
            max_ca_iterations_per_pair: 200,
            enclosure: EnclosureKind::Chords,
            temporal_culling: true,
            self_collision: true,
            skip_adjacent: true,
            early_out: false,
            distance_relative_error: 0.5,
            projected_motion_bound: true,
            time_pieces: false,
        }
    }
}

impl CcdOptions {
    /// With this distance threshold.
    #[must_use]
    pub const fn with_distance_threshold(mut self, threshold: f64) -> Self {
        self.distance_threshold = threshold;
        self
    }

    /// With this iteration budget per pair.
    #[must_use]
    pub const fn with_max_ca_iterations_per_pair(mut self, iterations: usize) -> Self {
        self.max_ca_iterations_per_pair = iterations;
        self
    }

    /// With this pose enclosure.
    #[must_use]
    pub const fn with_enclosure(mut self, enclosure: EnclosureKind) -> Self {
        self.enclosure = enclosure;
        self
    }

    /// With or without temporal culling.
    #[must_use]
    pub const fn with_temporal_culling(mut self, on: bool) -> Self {
        self.temporal_culling = on;
        self
    }

    /// With or without self-collision.
    #[must_use]
    pub const fn with_self_collision(mut self, on: bool) -> Self {
        self.self_collision = on;
        self
    }

    /// Whether adjacent links are skipped.
    #[must_use]
    pub const fn with_skip_adjacent(mut self, on: bool) -> Self {
        self.skip_adjacent = on;
        self
    }

    /// With or without path-validity early out.
    #[must_use]
    pub const fn with_early_out(mut self, on: bool) -> Self {
        self.early_out = on;
        self
    }

    /// Sets [`CcdOptions::distance_relative_error`].
    #[must_use]
    pub const fn with_distance_relative_error(mut self, e: f64) -> Self {
        self.distance_relative_error = e;
        self
    }

    /// Sets [`CcdOptions::projected_motion_bound`].
    #[must_use]
    pub const fn with_projected_motion_bound(mut self, on: bool) -> Self {
        self.projected_motion_bound = on;
        self
    }

    /// Sets [`CcdOptions::time_pieces`].
    #[must_use]
    pub const fn with_time_pieces(mut self, on: bool) -> Self {
        self.time_pieces = on;
        self
    }

    /// Checks the ranges documented on the fields.
    ///
    /// # Errors
    /// [`CcdError::InvalidOption`] naming the field.
    pub fn validate(&self) -> Result<(), CcdError> {
        let t = self.distance_threshold;
        if !(t.is_finite() && t > 0.0) {
            return Err(CcdError::InvalidOption {
                name: "distance_threshold",
                value: t,
                why: "must be finite and positive",
            });
        }
        let e = self.distance_relative_error;
        if !(0.0..=0.9).contains(&e) {
            return Err(CcdError::InvalidOption {
                name: "distance_relative_error",
                value: e,
                why: "must be in [0, 0.9]",
            });
        }
        if self.max_ca_iterations_per_pair == 0 {
            return Err(CcdError::InvalidOption {
                name: "max_ca_iterations_per_pair",
                value: 0.0,
                why: "must be at least 1",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_builders_set_fields() {
        let o = CcdOptions::default();
        assert!(o.validate().is_ok());
        let o = o
            .with_distance_threshold(1e-3)
            .with_max_ca_iterations_per_pair(7)
            .with_enclosure(EnclosureKind::Interval)
            .with_temporal_culling(false)
            .with_self_collision(false)
            .with_skip_adjacent(false)
            .with_early_out(true);
        assert_eq!(o.distance_threshold, 1e-3);
        assert_eq!(o.max_ca_iterations_per_pair, 7);
        assert_eq!(o.enclosure, EnclosureKind::Interval);
        assert!(!o.temporal_culling && !o.self_collision && !o.skip_adjacent && o.early_out);
    }

    #[test]
    fn out_of_range_options_are_rejected() {
        for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let o = CcdOptions::default().with_distance_threshold(t);
            assert!(matches!(
                o.validate(),
                Err(CcdError::InvalidOption {
                    name: "distance_threshold",
                    ..
                })
            ));
        }
        let o = CcdOptions::default().with_max_ca_iterations_per_pair(0);
        assert!(o.validate().is_err());
    }
}
