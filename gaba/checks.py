"""Argument checks that modules of several layers share: a question, a text, a positive integer."""
from __future__ import annotations

#: Questions longer than this many characters are refused (entity matching scans the text).
MAX_QUESTION_CHARS = 2000


def check_question(question, what: str, *, max_chars: int | None = MAX_QUESTION_CHARS,
                   utf8: bool = True) -> None:
    """Raise ValueError for a question that is not a string or is blank; over ``max_chars``
    characters (None: any length); or, with ``utf8``, not valid text (a lone surrogate)."""
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"{what} needs a non-empty question string.")
    if max_chars is not None and len(question) > max_chars:
        raise ValueError(f"the question is {len(question):,} characters long; {what} takes at most "
                         f"{max_chars:,}. Ask one question at a time.")
    if utf8 and (at := lone_surrogate(question)) is not None:
        raise ValueError(f"the question holds {question[at]!r} at position {at}, half of a "
                         f"character pair that is not text; retype the question without it.")


def check_text(value, what: str) -> None:
    """Raise TypeError unless ``value`` is a string; any string passes, blank or long
    (:func:`check_question` refuses a blank one). ``what`` names the argument in the message.

    >>> check_text(7, "the name given to is_name")
    Traceback (most recent call last):
    TypeError: the name given to is_name must be a string, not int (7).
    """
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string, not {type(value).__name__} ({value!r:.40}).")


def check_positive_int(name: str, value, *, allow_none: bool = False, hint: str = "") -> None:
    """Raise ValueError unless ``value`` is an int of at least 1 (a bool is not), or None with ``allow_none``;
    ``hint`` ends the message (what the number means, what to pass)."""
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        expected = "a positive integer, or None" if allow_none else "a positive integer"
        raise ValueError(f"{name}={value!r} must be {expected}" + (f": {hint}" if hint else "."))


def lone_surrogate(text: str) -> int | None:
    """The position of a lone surrogate in ``text`` (text that cannot be sent as UTF-8), else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None
