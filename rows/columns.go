package rows

import "slices"

// Column names of results.csv (DESIGN.md "Output files").
const (
	ColExperiment  = "experiment"   // spec name
	ColCell        = "cell"         // cell id within the experiment
	ColAlgorithm   = "algorithm"    // algorithm label of the spec
	ColTrial       = "trial"        // trial index, 0-based
	ColSeed        = "seed"         // the trial's derived mechanism seed (hex)
	ColProblemSeed = "problem_seed" // the seed of the trial's problem stream (hex)

	ColProblem    = "problem"    // problem kind (registry name)
	ColLossKind   = "loss_kind"  // loss of the problem ("" = the generator's own)
	ColDomain     = "domain"     // ball | box | unconstrained
	ColTask       = "task"       // erm | sco
	ColN          = "n"          // examples
	ColD          = "d"          // dimension
	ColRank       = "rank"       // rank of the gradient span (LLL24 §2)
	ColGK         = "g_k"        // residual Lipschitz constant G_k (LLL24 Def 2.1)
	ColEpsilon    = "epsilon"    // stated ε
	ColDelta      = "delta"      // stated δ
	ColNeighbours = "neighbours" // the neighbouring relation of (ε, δ): replace-one | add-remove

	ColDeltaMech    = "delta_mech"    // part of δ spent by the mechanism's exact law
	ColGDPS         = "gdp_s"         // Gaussian-DP parameter s (Dong–Roth–Su 2022); empty if not GDP
	ColEpsilonSpent = "epsilon_spent" // ε recomputed from the calibrated noise at δ
	ColK            = "k"             // inverse temperature of exp(−k(F + μ‖x‖²/2)) (GLL22 Thm 6.2)
	ColMu           = "mu"            // its regulariser μ (GLL22 Thm 6.2)
	ColSigma        = "sigma"         // a baseline's noise parameter
	ColSteps        = "steps"         // iterations (outer proximal steps for a sampler)
	ColBatch        = "batch"         // batch size

	ColEmpiricalRisk        = "empirical_risk"
	ColEmpiricalRiskOpt     = "empirical_risk_opt"
	ColExcessEmpiricalRisk  = "excess_empirical_risk"
	ColExcessPopulationRisk = "excess_population_risk"
	ColTheoryBound          = "theory_bound"     // the theorem's bound on the excess risk
	ColValueQueries         = "value_queries"    // counted zeroth-order queries
	ColGradientQueries      = "gradient_queries" // counted first-order queries
	ColGuarantee            = "guarantee"        // Guarantee, re-derived by the runner (algorithms.Certify)
	ColStatus               = "status"           // Status: StatusOK | StatusError
	ColError                = "error"            // the error of a failed trial, one line
	ColWallSeconds          = "wall_seconds"     // wall time of the trial

	// Extra columns the runner writes when they apply.
	ColTuning           = "tuning"             // Tuning of a tuned mechanism's knobs (empty: DefaultTuning)
	ColNotes            = "notes"              // the mechanism's notes, one line
	ColPopulationRiskSE = "population_risk_se" // standard error of the population risk estimate
	// ColPopulationAccuracy is the held-out accuracy of sign⟨a, x⟩ of a classification
	// instance (problems.Classifier), with its standard error.
	ColPopulationAccuracy       = "population_accuracy"
	ColPopulationAccuracySE     = "population_accuracy_se"
	ColPredictedValueQueries    = "predicted_value_queries"
	ColPredictedGradientQueries = "predicted_gradient_queries"
	ColDeltaTrue                = "delta_true" // expmech's Gaussian bound δ_s(ε) at its s (extra column)
	// ColDeltaDelivered is the exact δ at the stated ε of expmech's law on the worst-case
	// 1-D absolute-loss instance (privacy.AbsInstance), when the spec asks for it.
	ColDeltaDelivered = "delta_delivered"
	// ColBroken marks the rows of a privacy audit's deliberately broken variant (1) or of an
	// honest audited entry (0): the audit's verdict (flagged or not) depends on it.
	ColBroken = "broken"
	// The certificate columns: the runner re-derives guarantee from them.
	ColDeltaSpent       = "delta_spent"       // total δ of the run at epsilon_spent
	ColGuaranteeReason  = "guarantee_reason"  // why a claimed guarantee was downgraded, one line
	ColTrustedConstants = "trusted_constants" // "name=value(declared|measured); ..." the calibration relied on
)

// IdentityColumns returns (a fresh slice) the cell's identity columns carried into
// summaries and tables, in order; with the key ColCell, ColAlgorithm, ColTrial, a row's.
func IdentityColumns() []string {
	return []string{ColProblem, ColLossKind, ColDomain, ColTask, ColN, ColD, ColRank, ColGK, ColEpsilon, ColDelta}
}

// Unit is the unit of a numeric canonical column: "1" if dimensionless, "loss" for risks,
// else a count's noun; "" for text columns and k, mu, sigma (per mechanism: its Record doc).
func Unit(col string) string { return units[col] }

// units is read-only after initialisation.
var units = map[string]string{
	ColTrial: "index", ColN: "examples", ColD: "coordinates", ColRank: "dimensions", ColGK: "loss per unit length",
	ColEpsilon: "1", ColDelta: "1", ColDeltaMech: "1", ColGDPS: "1", ColEpsilonSpent: "1", ColDeltaSpent: "1",
	ColK: "", ColMu: "", ColSigma: "", ColSteps: "iterations", ColBatch: "examples",
	ColEmpiricalRisk: "loss", ColEmpiricalRiskOpt: "loss", ColExcessEmpiricalRisk: "loss",
	ColExcessPopulationRisk: "loss", ColTheoryBound: "loss",
	ColValueQueries: "queries", ColGradientQueries: "queries", ColWallSeconds: "s",
}

// IsNumeric reports whether col is a canonical column that holds a number (or is empty).
// The Reader rejects a row whose numeric column holds anything else.
func IsNumeric(col string) bool {
	_, ok := units[col]
	return ok
}

// DiagnosticsFile holds every row's DiagnosticColumns(), keyed, apart from results.csv.
const DiagnosticsFile = "diagnostics.csv"

// DiagnosticColumns returns (a fresh slice) the extra columns the runner moves out of
// results.csv into DiagnosticsFile: reports that depend on the data or the mechanism's
// randomness and that no guarantee covers (PRIVACY.md §8: K, which Papernot & Steinke 2022
// Thm 2 does not cover, failed grid points, clipping rate, empty lots, counted queries).
func DiagnosticColumns() []string { return slices.Clone(diagnosticColumns) }

// diagnosticColumns is read-only after initialisation (DiagnosticColumns).
var diagnosticColumns = []string{"tuning_runs", "tuning_failed", "clip_rate", "empty_lots",
	ColCountedValueQueries, ColCountedGradientQueries}

// The counted queries of a row that publishes the plan's (algorithms.Record.PlannedCounts):
// diagnostics, since the count reveals K or the realised lot sizes.
const (
	ColCountedValueQueries    = "counted_value_queries"
	ColCountedGradientQueries = "counted_gradient_queries"
)

// IsDiagnostic reports whether col is one of the DiagnosticColumns.
func IsDiagnostic(col string) bool { return slices.Contains(diagnosticColumns, col) }
