"""Round 12: settings set twice, and JSON objects that keep their names."""

from __future__ import annotations

from conftest import corpus_case

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import ECHO, ODD_VALUE, Scores
from klipui.shrink.text import split


def _settings(overrides: dict[int, str]) -> list[str]:
    """An `env`-like listing of 60 keys each set once, with the lines of `overrides` appended."""
    lines = [f"ACME_SETTING_{k:02d}=value-{k}" for k in range(60)]
    return lines + [overrides[k] for k in sorted(overrides)]


def test_a_key_set_again_with_another_value_is_odd_on_both_lines() -> None:
    lines = _settings({0: "ACME_SETTING_17=value-from-the-override"})
    score = Scores(split("\n".join(lines) + "\n"), Hint(tool="bash", command="env")).score
    assert score.get(17, 0) >= ODD_VALUE
    assert score.get(60, 0) >= ODD_VALUE
    assert score.get(18, 0) < ODD_VALUE


def test_layered_settings_are_not_one_override() -> None:
    lines = _settings({k: f"ACME_SETTING_{k:02d}=layer-two" for k in range(20, 30)})
    score = Scores(split("\n".join(lines) + "\n"), Hint(tool="bash", command="env")).score
    assert all(score.get(i, 0) < ODD_VALUE for i in range(20, 30))


def test_git_config_show_origin_keeps_both_settings_of_the_overridden_identity() -> None:
    text, meta = corpus_case("1360-git-config-show-origin-included-work-identity")
    hint = Hint(tool=meta["tool"], command=meta["command"])
    out = shrink(text, hint, Budget(max_chars=meta["budget_chars"])).content
    assert "home/.gitconfig\tuser.email=dana@whitfield-labs.example" in out
    assert "home/.gitconfig-work\tuser.email=dana.whitfield@oldcorp.example" in out
    assert "home/.gitconfig-work\tcommit.gpgsign=false" in out


def test_a_json_object_keeps_its_name_and_version_before_its_last_key() -> None:
    text, meta = corpus_case("1229-pip-inspect-venv-editable-more-itertools")
    hint = Hint(tool=meta["tool"], command=meta["command"])
    out = shrink(text, hint, Budget(max_chars=meta["budget_chars"]))
    assert out.strategy == "json"
    assert '"name": "more-itertools",' in out.content
    assert '"version": "11.1.0",' in out.content


def test_a_host_named_by_an_error_ranks_the_line_that_configures_it() -> None:
    lines = [f"cache-setting-{k:02d} = {k}" for k in range(60)]
    lines[30] = 'registry = "https://npm.internal.acme.example/repository/npm-group/"'
    lines.append("npm ERR! request failed, reason: getaddrinfo ENOTFOUND npm.internal.acme.example")
    score = Scores(split("\n".join(lines) + "\n"), Hint(tool="bash", command="npm ping")).score
    assert score.get(30, 0) >= ECHO
    assert score.get(29, 0) < ECHO
