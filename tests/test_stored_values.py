"""Model output made to fit its columns (domain/stored_values), and the runner's crash back-off."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.policies import GatePolicy
from hitl_dashboard.domain.revisions import extract_code_blocks
from hitl_dashboard.domain.stored_values import (
    KEY_CHARS,
    LANGUAGE_CHARS,
    fit_with_hash,
    is_tool_name,
    language_token,
    revision_key,
    short_label,
    storable_text,
)
from hitl_dashboard.services.runner.run_failures import crash_backoff_s


def test_a_short_clean_key_is_kept_as_it_is():
    assert revision_key("app/retry.py") == "app/retry.py"
    assert revision_key("tests/test_retry.py") == "tests/test_retry.py"


def test_a_300_character_file_name_fits_keeps_its_start_and_extension_and_is_stable():
    raw = "app/" + "x" * 300 + ".py"
    key = revision_key(raw)
    assert len(key) == KEY_CHARS
    assert key.startswith("app/xxxx") and key.endswith(".py")
    assert revision_key(raw) == key  # the next revision of the same file lines up
    other = revision_key("app/" + "x" * 299 + "y.py")
    assert other != key and len(other) == KEY_CHARS  # same prefix, different file: still two keys


@pytest.mark.parametrize("raw, expected", [
    ("./app/x.py", "app/x.py"),
    ("/etc/passwd", "etc/passwd"),
    ("../../secret.py", "secret.py"),
    ("app\\win\\x.py", "app/win/x.py"),
    ("app//x.py", "app/x.py"),
    ("my file<script>.py", "my_file_script_.py"),
    ("..", "snippet"),
    ("a\x00b\u202e.py", "a_b_.py"),
])
def test_path_junk_in_a_key_is_normalised(raw, expected):
    assert revision_key(raw) == expected


def test_a_key_made_only_of_a_long_extensionless_name_still_fits():
    key = revision_key("y" * 1000)
    assert len(key) == KEY_CHARS and key.startswith("yyy") and "~" in key


@pytest.mark.parametrize("raw, expected", [
    ("python", "python"), ("C++", "c++"), ("", "text"), (None, "text"), ("<b>py</b>", "bpyb"),
    ("x" * 100, "x" * LANGUAGE_CHARS),
])
def test_a_language_is_a_short_safe_token(raw, expected):
    assert language_token(raw) == expected


def test_extracted_blocks_fit_their_columns():
    text = "```" + "P" * 80 + "\n# file: " + "../" + "z" * 400 + ".py\nprint(1)\n```"
    [block] = extract_code_blocks(text)
    assert len(block.key) <= KEY_CHARS and block.key.endswith(".py") and not block.key.startswith(".")
    assert block.language == "p" * LANGUAGE_CHARS


def test_fit_with_hash_keeps_short_values_and_shortens_long_ones_distinctly():
    assert fit_with_hash("call_1", 128) == "call_1"
    a, b = fit_with_hash("c" * 300, 128), fit_with_hash("c" * 299 + "d", 128)
    assert len(a) == len(b) == 128 and a != b and a.startswith("c" * 100)


def test_storable_text_replaces_nul_and_lone_surrogates():
    assert storable_text("a\x00b") == "a\ufffdb"
    assert storable_text("x\ud800y") == "x?y"
    assert storable_text("ok \u00e9") == "ok \u00e9"


def test_a_label_is_cut_with_an_ellipsis():
    assert short_label("short") == "short"
    label = short_label("L" * 400)
    assert len(label) == 255 and label.endswith("\u2026")


def test_a_gate_policy_names_only_storable_tools():
    assert GatePolicy.from_dict({"tools": ["deploy_to_prod"]}).tools == ("deploy_to_prod",)
    assert is_tool_name("deploy_to_prod") and not is_tool_name("t" * 65) and not is_tool_name("rm -rf /")
    with pytest.raises(InvalidInput, match="tool names"):
        GatePolicy.from_dict({"tools": ["t" * 65]})


def test_crash_backoff_doubles_up_to_the_cap():
    assert [crash_backoff_s(n, 1.0, 300.0) for n in range(1, 11)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300]
