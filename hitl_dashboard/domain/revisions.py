"""Extract the code blocks an agent proposes; each block is keyed by the file it names."""

import re
from dataclasses import dataclass

from hitl_dashboard.domain.hashing import sha256_text
from hitl_dashboard.domain.stored_values import language_token, revision_key, storable_text

_FENCE = re.compile(r"```([\w+#.-]*)[^\n]*\n(.*?)```", re.DOTALL)
_FILE_LINE = re.compile(r"^\s*(?:#|//|--|/\*)\s*file:\s*(\S+)", re.IGNORECASE)


@dataclass(frozen=True)
class ProposedCode:
    key: str
    language: str
    content: str

    @property
    def content_hash(self) -> str:
        return sha256_text(self.content)


def extract_code_blocks(text: str) -> list[ProposedCode]:
    """Fenced blocks in order. A first line like `# file: app/x.py` names the key;
    unnamed blocks are keyed `snippet-N` by position so revisions still line up. Keys and languages
    are model output: they are made to fit their columns here (see domain/stored_values)."""
    blocks: list[ProposedCode] = []
    for index, match in enumerate(_FENCE.finditer(text), start=1):
        language, body = language_token(match.group(1)), storable_text(match.group(2))
        first_line = body.split("\n", 1)[0]
        named = _FILE_LINE.match(first_line)
        key = revision_key(named.group(1)) if named else f"snippet-{index}"
        blocks.append(ProposedCode(key=key, language=language, content=body.rstrip("\n") + "\n"))
    return blocks


@dataclass(frozen=True)
class CodeAuthors:
    """What a team's agents' texts propose as code: the planner proposes none (its sketches are no
    revision); in a team that serves copy, the copy producer's whole text is the revision when it
    has no code block (copy.md)."""

    planner: str | None
    copy_producer: str | None = None


def proposed_code(authors: CodeAuthors, source: str, content: str) -> list[ProposedCode]:
    """The files one text message proposes."""
    if source == authors.planner:
        return []
    blocks = extract_code_blocks(content)
    if not blocks and source == authors.copy_producer:
        blocks = [ProposedCode("copy.md", "markdown", storable_text(content.strip()) + "\n")]
    return blocks
