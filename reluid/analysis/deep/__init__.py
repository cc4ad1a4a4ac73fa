"""Deep ReLU networks (two or more hidden layers): Grigsby, Lindsey, Rolnick 2023.

* :mod:`~reluid.analysis.deep.mechanisms` -- exact detection of dead,
  always-active, never co-active and layer-flip mechanisms (Section 5) with
  witnesses θ′, and orbits of the obvious symmetries;
* :mod:`~reluid.analysis.deep.fundim` -- certified functional dimension
  (Grigsby, Lindsey, Meyerhoff, Wu 2022; Lemma F.6);
* :mod:`~reluid.analysis.deep.certify` -- certificates (never
  ``no-hidden-symmetries`` for a deep network);
* :mod:`~reluid.analysis.deep.survey` -- the Figure 6 survey.
"""

from reluid.analysis.deep.certify import certify_deep
from reluid.analysis.deep.fundim import FunDimResult, functional_dimension, upper_bound
from reluid.analysis.deep.mechanisms import (Activity, Mechanism, MechanismReport, deep_orbit_canonical,
                                             detect_mechanisms, is_deep_canonical, layer_flip_sets,
                                             orbit_element, same_orbit)
from reluid.analysis.deep.survey import SurveyConfig, SurveyRecord, SurveyResult, run_survey, wilson_interval

__all__ = ["certify_deep", "FunDimResult", "functional_dimension", "upper_bound", "Activity", "Mechanism",
           "MechanismReport", "deep_orbit_canonical", "detect_mechanisms", "is_deep_canonical", "layer_flip_sets",
           "orbit_element", "same_orbit", "SurveyConfig", "SurveyRecord", "SurveyResult", "run_survey",
           "wilson_interval"]
