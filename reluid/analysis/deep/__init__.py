"""Deep ReLU networks (two or more hidden layers): Grigsby, Lindsey, Rolnick 2023.

* :mod:`~reluid.analysis.deep.orbit` -- canonical form and membership of the
  orbits of the obvious symmetries (any depth);
* :mod:`~reluid.analysis.deep.align` -- exact alignment: canonical rows layer by
  layer, the element carrying one network onto another, or the first layer
  that differs;
* :mod:`~reluid.analysis.deep.regions` -- exact activation regions (rational
  points, Farkas certificates for the empty cells);
* :mod:`~reluid.analysis.deep.equivalence` -- functional equality at any depth;
* :mod:`~reluid.analysis.deep.mechanisms` -- exact detection of dead,
  always-active, never co-active, layer-flip, zero-outgoing and proportional
  mechanisms (Section 5) with witnesses θ′;
* :mod:`~reluid.analysis.deep.fundim` -- certified functional dimension
  (Grigsby, Lindsey, Meyerhoff, Wu 2022; Lemma F.6);
* :mod:`~reluid.analysis.deep.two_layers` -- two hidden layers: the exact
  hypotheses H0–H4 of docs/mathematics.md §8 and the flip families
  (Theorem 8.2: fibre = orbits of the flips θ^{F1,F2});
* :mod:`~reluid.analysis.deep.strict` -- exact strict linear systems
  (witnesses and Farkas vectors, docs/mathematics.md §8.2);
* :mod:`~reluid.analysis.deep.cells` -- exact activation cells, dim_fun
  exactly (docs/mathematics.md §9), exact functional equality;
* :mod:`~reluid.analysis.deep.decide` -- the decision
  (``no-hidden-symmetries`` only by docs/mathematics.md §8);
* :mod:`~reluid.analysis.deep.survey` -- the Figure 6 survey;
  :mod:`~reluid.analysis.deep.two_layers_survey` and
  :mod:`~reluid.analysis.deep.competitors` -- reports/two_layers.md (how often
  Theorem 8.2 applies; a float search for competitors, classified exactly).
"""

from reluid.analysis.deep.align import Alignment, align
from reluid.analysis.deep.decide import DeepDecision, decide_deep
from reluid.analysis.deep.equivalence import equivalent
from reluid.analysis.deep.fundim import FunDimResult, functional_dimension, upper_bound
from reluid.analysis.deep.mechanisms import Activity, Mechanism, MechanismReport, detect_mechanisms, layer_flip_sets
from reluid.analysis.deep.orbit import canonical_form, is_canonical, same_orbit
from reluid.analysis.deep.regions import RegionEnumeration, activation_regions, arrangement, strict_feasibility
from reluid.analysis.deep.survey import SurveyConfig, SurveyRecord, SurveyResult, run_survey, wilson_interval

__all__ = ["DeepDecision", "decide_deep", "FunDimResult", "functional_dimension", "upper_bound", "Activity",
           "Mechanism", "MechanismReport", "detect_mechanisms", "layer_flip_sets", "canonical_form", "is_canonical",
           "same_orbit", "SurveyConfig", "SurveyRecord", "SurveyResult", "run_survey", "wilson_interval", "Alignment",
           "align", "equivalent", "RegionEnumeration", "activation_regions", "arrangement", "strict_feasibility"]
