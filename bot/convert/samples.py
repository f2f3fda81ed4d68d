"""Per-sample logs of lm-eval and inspect-ai -> Every Eval Ever instance rows, as EEE's own
converters write them (docs/convert.md, "Every Eval Ever"). Pure."""

from __future__ import annotations

import hashlib
import io
import json
import math
import zipfile
from typing import Any

from bot.convert.jsonread import read_json
from bot.convert.registry import ConvertError
from bot.strictjson import TooDeep

Row = dict[str, Any]

#: An `.eval` archive's sample members are read one at a time, each under this cap, and at most
#: this many: a zip bomb cannot cost more.
MAX_SAMPLE_BYTES = 16 * 1024 * 1024
MAX_SAMPLES = 200_000
LM_EVAL_PREFIX = "samples_"


class SamplesError(ValueError):
    """A per-sample log that cannot be read as one."""


def lm_eval_task(results_name: str, samples_name: str) -> str | None:
    """The task of an lm-eval samples file written beside `results_<date>.json`, from its name
    (`samples_<task>_<date>.jsonl`); None when it is no samples file of that run."""
    if not results_name.startswith("results_") or not results_name.endswith(".json"):
        return None
    date = results_name[len("results_") : -len(".json")]
    suffix = f"_{date}.jsonl"
    if not samples_name.startswith(LM_EVAL_PREFIX) or not samples_name.endswith(suffix):
        return None
    task = samples_name[len(LM_EVAL_PREFIX) : -len(suffix)]
    return task or None


def lm_eval_rows(content: bytes, filename: str) -> list[Row]:
    """The rows of one lm-eval samples file, in its order."""
    rows: list[Row] = []
    for number, line in enumerate(content.split(b"\n"), start=1):
        if not line.strip():
            continue
        sample = _json_object(line, f"{filename}:{number}")
        rows.append(_lm_eval_row(sample))
        if len(rows) > MAX_SAMPLES:
            raise SamplesError(f"{filename}: more than {MAX_SAMPLES:,} samples")
    return rows


def _lm_eval_row(sample: dict[str, Any]) -> Row:
    arguments = _mapping(sample.get("arguments"))
    prompt = _text(_mapping(arguments.get("gen_args_0")).get("arg_0"))
    target = _text(sample.get("target"))
    choices = _lm_eval_choices(arguments)
    output = _lm_eval_output(sample, choices)
    metrics = [m for m in sample.get("metrics") or () if isinstance(m, str)]
    score: float | None = None
    for metric in metrics:
        value = sample.get(metric)
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            score = float(value)
            break
    filter_name = _text(sample.get("filter")) or "none"
    row: Row = {
        "sample_id": _text(sample.get("doc_id", 0)),
        "sample_hash": _sha256(json.dumps({"raw": prompt, "reference": target}, sort_keys=True)),
        "interaction_type": "single_turn",
        "input": {"raw": prompt, "reference": [target]},
        "output": {"raw": [output]},
        "answer_attribution": [
            {
                "turn_idx": 0,
                "source": "output.raw",
                "extracted_value": output,
                "extraction_method": filter_name,
                "is_terminal": True,
            }
        ],
        # as EEE's converter: the first metric the sample carries; no metric reads as 0
        "evaluation": {"score": score or 0.0, "is_correct": score == 1.0},
        "metadata": {
            "doc_hash": _text(sample.get("doc_hash")),
            "prompt_hash": _text(sample.get("prompt_hash")),
            "target_hash": _text(sample.get("target_hash")),
            "filter": filter_name,
            "lm_eval_metrics": json.dumps({m: sample.get(m) for m in metrics if m in sample}),
        },
    }
    if choices is not None:
        row["input"]["choices"] = choices
    return row


def _lm_eval_choices(arguments: dict[str, Any]) -> list[str] | None:
    """A multiple-choice document's choices: the continuation (`arg_1`) of each request."""
    if "gen_args_1" not in arguments:
        return None
    choices = []
    index = 0
    while f"gen_args_{index}" in arguments:
        continuation = _mapping(arguments[f"gen_args_{index}"]).get("arg_1")
        if continuation is not None:
            choices.append(_text(continuation).strip())
        index += 1
    return choices or None


def _lm_eval_output(sample: dict[str, Any], choices: list[str] | None) -> str:
    responses = sample.get("filtered_resps") or sample.get("resps") or []
    if not isinstance(responses, list) or not responses:
        return ""
    if choices is not None:  # log-likelihoods: the choice the model ranks highest
        scores = []
        for response in responses:
            first = response[0] if isinstance(response, list) and response else response
            value = first[0] if isinstance(first, list) and first else first
            scores.append(float(value) if isinstance(value, int | float) else float("-inf"))
        best = scores.index(max(scores))
        return choices[best] if best < len(choices) else str(best)
    first = responses[0]
    if isinstance(first, list):
        return _text(first[0]) if first else ""
    return _text(first)


def inspect_rows(content: bytes, filename: str) -> list[Row]:
    """The rows of an inspect-ai log's samples (`.json` log or `.eval` archive), ordered by
    sample id and epoch as inspect lists them."""
    samples = _archive_samples(content, filename) if content[:4] == b"PK\x03\x04" else None
    if samples is None:
        try:
            data = read_json(content, filename)
        except ConvertError as error:
            raise SamplesError(str(error)) from error
        except TooDeep as error:
            raise SamplesError(f"{filename}: JSON nested too deeply to read") from error
        listed = data.get("samples") if isinstance(data, dict) else None
        samples = [s for s in listed if isinstance(s, dict)] if isinstance(listed, list) else []
    return [_inspect_row(sample) for sample in samples]


def _archive_samples(content: bytes, filename: str) -> list[dict[str, Any]]:
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            members = [
                info
                for info in archive.infolist()
                if info.filename.startswith("samples/") and info.filename.endswith(".json")
            ]
            if len(members) > MAX_SAMPLES:
                raise SamplesError(f"{filename}: more than {MAX_SAMPLES:,} samples")
            samples = []
            for info in members:
                if info.file_size > MAX_SAMPLE_BYTES:
                    raise SamplesError(
                        f"{filename}: {info.filename} is {info.file_size} bytes, over the"
                        f" {MAX_SAMPLE_BYTES}-byte cap of one sample"
                    )
                with archive.open(info) as member:
                    raw = member.read(MAX_SAMPLE_BYTES + 1)
                samples.append(_json_object(raw, f"{filename}: {info.filename}"))
    except zipfile.BadZipFile as error:
        raise SamplesError(f"{filename}: not a readable .eval archive ({error})") from error
    return sorted(samples, key=lambda s: (_sort_key(s.get("id")), _sort_key(s.get("epoch"))))


def _inspect_row(sample: dict[str, Any]) -> Row:
    target = sample.get("target")
    reference = [_text(t) for t in target] if isinstance(target, list) else [_text(target)]
    given = sample.get("input")
    raw_input = given if isinstance(given, str) else _user_text(given)
    output = _mapping(sample.get("output"))
    choices = output.get("choices")
    first = _mapping(choices[0]) if isinstance(choices, list) and choices else {}
    response, reasoning = _content(_mapping(first.get("message")).get("content"))
    scores = _mapping(sample.get("scores"))
    scorer, verdict = next(iter(scores.items()), ("", None))
    verdict = _mapping(verdict)
    answer = _text(verdict.get("answer")) or _text(verdict.get("explanation")) or response
    messages = [
        _message(index, message)
        for index, message in enumerate(sample.get("messages") or ())
        if isinstance(message, dict)
    ]
    roles = [message["role"].lower() for message in messages]
    if "tool" in roles:
        kind = "agentic"
    elif roles.count("assistant") > 1:
        kind = "multi_turn"
    else:
        kind = "single_turn"
    score = _score(verdict.get("value"))
    fallback = score is None
    if score is None:  # no value a number can be read from: EEE's fallback, the answer's match
        score = 1.0 if answer in reference else 0.0
    row: Row = {
        "sample_id": _text(sample.get("id")),
        "sample_hash": _sha256(raw_input + "".join(reference)),
        "interaction_type": kind,
        "input": {"raw": raw_input, "reference": reference},
        "answer_attribution": [
            {
                "turn_idx": 0 if kind == "single_turn" else max(len(messages) - 1, 0),
                "source": "output.raw" if kind == "single_turn" else "messages",
                "extracted_value": answer,
                "extraction_method": scorer or "none",
                "is_terminal": True,
            }
        ],
        "evaluation": {
            "score": score,
            "is_correct": (answer in reference) if fallback else score > 0,
            "num_turns": len(messages) if kind != "single_turn" and messages else 1,
        },
        "metadata": {"epoch": _text(sample.get("epoch"))},
    }
    if isinstance(sample.get("choices"), list):
        row["input"]["choices"] = [_text(choice) for choice in sample["choices"]]
    if kind == "single_turn":
        row["output"] = {"raw": [response]}
        if reasoning is not None:
            row["output"]["reasoning_trace"] = [reasoning]
    else:
        row["messages"] = messages
        row["evaluation"]["tool_calls_count"] = sum(len(m.get("tool_calls", ())) for m in messages)
    usage = _usage(output.get("usage"))
    if usage is not None:
        row["token_usage"] = usage
    stop = first.get("stop_reason")
    if isinstance(stop, str):
        row["metadata"]["stop_reason"] = stop
    return row


def _message(index: int, message: dict[str, Any]) -> dict[str, Any]:
    content, reasoning = _content(message.get("content"))
    shaped: dict[str, Any] = {
        "turn_idx": index,
        "role": _text(message.get("role")) or "unknown",
        "content": content,
    }
    if reasoning is not None:
        shaped["reasoning_trace"] = reasoning
    calls = [
        {
            "id": _text(call.get("id")),
            "name": _text(call.get("function")),
            "arguments": {
                str(key): json.dumps(value)
                for key, value in _mapping(call.get("arguments")).items()
            },
        }
        for call in message.get("tool_calls") or ()
        if isinstance(call, dict)
    ]
    if calls:
        shaped["tool_calls"] = calls
    call_id = message.get("tool_call_id")
    if isinstance(call_id, str):
        shaped["tool_call_id"] = [call_id]
    return shaped


def _content(content: Any) -> tuple[str, str | None]:
    """(the text, the reasoning) of a message's content: a string, or a list of blocks."""
    if isinstance(content, str):
        return content, None
    text, reasoning = "", None
    for item in content if isinstance(content, list) else ():
        block = _mapping(item)
        if block.get("type") == "text":
            text = _text(block.get("text"))
        elif block.get("type") == "reasoning":
            reasoning = _text(block.get("reasoning"))
    return text, reasoning


def _user_text(messages: Any) -> str:
    if not isinstance(messages, list):
        return ""
    parts = [
        _content(message.get("content"))[0]
        for message in messages
        if isinstance(message, dict) and message.get("role") == "user"
    ]
    return "\n".join(parts)


def _score(value: Any) -> float | None:
    """EEE's reading of an inspect score: C/I, true/false, a number."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        word = value.strip().upper()
        if word in ("C", "TRUE"):
            return 1.0
        if word in ("I", "FALSE"):
            return 0.0
        try:
            number = float(word)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _usage(usage: Any) -> dict[str, int] | None:
    usage = _mapping(usage)
    fields = ("input_tokens", "output_tokens", "total_tokens")
    if not all(isinstance(usage.get(f), int) and usage[f] >= 0 for f in fields):
        return None
    shaped = {f: usage[f] for f in fields}
    for extra in ("input_tokens_cache_write", "input_tokens_cache_read", "reasoning_tokens"):
        if isinstance(usage.get(extra), int) and usage[extra] >= 0:
            shaped[extra] = usage[extra]
    return shaped


def _json_object(raw: bytes, where: str) -> dict[str, Any]:
    try:
        data = read_json(raw, where)
    except ConvertError as error:
        raise SamplesError(str(error)) from error
    except TooDeep as error:
        raise SamplesError(f"{where}: JSON nested too deeply to read") from error
    if not isinstance(data, dict):
        raise SamplesError(f"{where}: not a JSON object; a sample is one object")
    return data


def _sort_key(value: Any) -> tuple[int, str]:
    return (0, f"{value:020d}") if isinstance(value, int) else (1, str(value))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)
