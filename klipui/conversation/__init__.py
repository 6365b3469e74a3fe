"""Message utilities for API-shaped conversations (Anthropic and OpenAI).

- `tokens`: quick token estimate (4 characters a token) with a pluggable exact counter;
- `walk`: content blocks of a message in one vocabulary for both shapes;
- `merge`: merging consecutive same-role messages;
- `validate`: role alternation and tool_use / tool_result pairing checks, problems by index;
- `sanitize`: base64 blobs and binary replaced by placeholders stating type and size;
- `api`: API request messages built from a `Session` (merged, paired, sanitised).
"""

from klipui.conversation.api import anthropic_request, openai_request
from klipui.conversation.merge import merge_consecutive
from klipui.conversation.sanitize import sanitize_messages, sanitize_text
from klipui.conversation.tokens import estimate_tokens, quick_estimate, use_counter
from klipui.conversation.validate import (
    MessageProblem,
    check_alternation,
    check_messages,
    check_tool_pairs,
)
from klipui.conversation.walk import walk_blocks

__all__ = [
    "MessageProblem",
    "anthropic_request",
    "check_alternation",
    "check_messages",
    "check_tool_pairs",
    "estimate_tokens",
    "merge_consecutive",
    "openai_request",
    "quick_estimate",
    "sanitize_messages",
    "sanitize_text",
    "use_counter",
    "walk_blocks",
]
