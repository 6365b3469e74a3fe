"""The learned line model: its features, its bounded nudge, weights that come from the tuned
folds alone, and a ranking that separates must-keep lines better than salience's levels."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from klipui.shrink import Hint, line_weights, linemodel, salience
from klipui.shrink.text import split

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import train_line_model
from corpus_folds import CORPUS, part_of
from shrink_quality import hint_of


def _features(text: str, hint: Hint) -> list[list[str]]:
    lines = split(text)
    scan = salience.Scores(lines, hint, 2_000)
    assert scan.templates is not None
    return linemodel.features(lines, hint, scan.score, scan.templates, salience._novel(lines))


def test_features_name_the_level_first_then_traits_and_level_crossings() -> None:
    text = "".join(f"ok test_{i} passed in 0.{i}s\n" for i in range(40))
    text += "ERROR src/app.py:12 boom\n" + "done\n"
    rows = _features(text, Hint(tool="bash", command="pytest src/app.py"))
    error = rows[40]
    assert error[0] in ("s7", "s8")  # a strong signal: 900 and above
    assert {"c1", "loc", "upper", "echo", "w:boom"} <= set(error)
    assert f"{error[0]}*loc" in error and f"{error[0]}*c1" in error
    routine = rows[20]
    assert routine[0] == "s0" and "c10" in routine and "loc" not in routine
    assert "tfirst" in rows[0] and "tlast" in rows[39]


@given(
    st.dictionaries(st.integers(0, 49), st.integers(0, 1_000), max_size=50),
    st.lists(st.floats(-40, 40), min_size=50, max_size=50),
)
def test_the_nudge_is_bounded_spares_firm_lines_and_adds_only_likely_ones(
    score: dict[int, int], odds: list[float]
) -> None:
    related = set(range(0, 50, 7))
    nudged = linemodel.nudged(score, odds, related)
    for i, value in nudged.items():
        assert abs(value - score.get(i, 0)) <= linemodel.MAX_NUDGE
        assert i not in related or value >= score.get(i, 0)
        assert i in score or odds[i] > 0
        if score.get(i, 0) >= linemodel.FIRM:
            assert value == score[i]
        else:
            assert value < linemodel.FIRM  # never up to the lines the rules hold firm
    assert set(score) <= set(nudged)


def test_a_reducers_top_pieces_are_firm() -> None:
    # salience imports the model, so the model cannot read the level from salience
    assert linemodel.FIRM <= salience.PLANNED


def test_training_reads_tuned_cases_only(tmp_path: Path) -> None:
    names = [p.name for p in sorted(CORPUS.iterdir()) if (p / "output.txt").is_file()]
    tuned = next(name for name in names if part_of(name) == "tuned")
    held = next(name for name in names if part_of(name) == "held-out")
    for name in (tuned, held):
        shutil.copytree(CORPUS / name, tmp_path / name)
    found = train_line_model.examples(tmp_path)
    assert len(found) == 1
    assert len(found[0]) == len(split((CORPUS / tuned / "output.txt").read_text()))


def test_the_shipped_weights_are_what_the_training_script_fits() -> None:
    bias, weights = train_line_model.fit(train_line_model.examples(CORPUS))
    fitted = train_line_model.rounded(weights)
    assert abs(round(bias, 4) - line_weights.BIAS) < 1e-3
    assert fitted.keys() == line_weights.WEIGHTS.keys()
    assert max(abs(fitted[n] - line_weights.WEIGHTS[n]) for n in fitted) < 1e-3


def _separation(part: str) -> tuple[float, float]:
    """Over the cases of `part`: the share of (must-keep, other) line pairs of one case that the
    model's log-odds and salience's score each order rightly (ties count half)."""
    model = level = pairs = 0.0
    for case in sorted(CORPUS.iterdir()):
        if not (case / "output.txt").is_file() or part_of(case.name) != part:
            continue
        meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
        lines = split((case / "output.txt").read_text(encoding="utf-8"))
        hint = hint_of(meta)
        scan = salience.Scores(lines, hint, meta["budget_chars"])
        score = scan.score
        odds = linemodel.log_odds(lines, hint, score, scan.templates, salience._novel(lines))
        if odds is None:
            continue
        keep = [any(s in line for s in meta["must_keep"]) for line in lines.lines]
        good = [i for i, k in enumerate(keep) if k]
        rest = [i for i, k in enumerate(keep) if not k][:: max(1, len(keep) // 400)]
        for i in good:
            for j in rest:
                pairs += 1
                model += 1.0 if odds[i] > odds[j] else 0.5 if odds[i] == odds[j] else 0.0
                a, b = score.get(i, 0), score.get(j, 0)
                level += 1.0 if a > b else 0.5 if a == b else 0.0
    return model / pairs, level / pairs


def test_the_model_separates_must_keep_lines_better_than_salience_on_held_out_cases() -> None:
    # held-out cases: figures only, never their text
    model, level = _separation("held-out")
    assert model > level, f"held-out pairs ordered rightly: model {model:.3f}, salience {level:.3f}"
