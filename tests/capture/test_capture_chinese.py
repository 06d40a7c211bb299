"""What capture keeps from a person who writes Chinese (issue 43): a sentence is read by Chinese cues into the classes
the English rules give, split at 。！？；, under the same budget; and the agent's outcomes said in Chinese.
Hand-written sentences, one rule per test."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from memlane.capture import chinese
from memlane.capture.digest import draft_turns
from memlane.capture.draft import Drafted
from memlane.capture.person import PERSON_PER_TURN
from memlane.capture.prose import machine_kind, read_prose
from memlane.capture.turns import Turn

DAY = dt.date(2026, 6, 2)


def _t(role: str, content: str, minute: int = 0) -> Turn:
    return Turn(role, content, dt.datetime(2026, 6, 2, 9, minute % 60))


def _drafts(turns: list[Turn]) -> list[Drafted]:
    return draft_turns(turns, DAY, ())


def _texts(turns: list[Turn]) -> list[str]:
    return [d.draft.content for d in _drafts(turns)]


def test_a_chinese_sentence_is_split_at_its_own_full_stops() -> None:
    units = read_prose("我喜欢深色主题。以后别用浅色的！你觉得呢？我们周五发布；周一复盘").units
    assert units == ["我喜欢深色主题。", "以后别用浅色的！", "你觉得呢？", "我们周五发布；", "周一复盘"]


def test_a_chinese_line_with_a_few_symbols_is_prose_not_code() -> None:
    line = "我们的阈值(< 3 个 PR)太低了，应该改成 5 个以上(至少)"
    assert machine_kind(line) is None
    assert read_prose(line).units


def test_what_the_person_says_of_themselves_in_chinese_is_kept() -> None:
    texts = _texts([_t("user", "我住在杭州，每天骑车上班。")])
    assert any("我住在杭州" in t for t in texts), texts


def test_a_rule_for_later_in_chinese_is_an_instruction() -> None:
    drafts = _drafts([_t("user", "以后提交代码之前一定要先跑测试。")])
    assert [d.role for d in drafts] == ["remember"], drafts


def test_a_name_the_person_chooses_in_chinese_is_their_decision() -> None:
    drafts = _drafts([_t("user", "新项目就叫「晨星」吧。")])
    assert [d.role for d in drafts] == ["decided"], drafts


def test_a_question_or_a_request_in_chinese_is_no_fact() -> None:
    turns = [
        _t("user", "你能帮我看看这 2 个配置文件吗？", 0),
        _t("user", "请帮我分析一下这 3 个仓库的结构", 1),
        _t("user", "为什么构建这么慢", 2),
    ]
    assert _texts(turns) == []


def test_a_bare_yes_in_chinese_to_the_agents_question_is_no_fact() -> None:
    turns = [_t("assistant", "配置已经准备好了。要我现在部署吗？", 0), _t("user", "好的", 1)]
    assert _texts(turns) == []
    turns = [_t("assistant", "配置已经准备好了。要用哪个端口？", 0), _t("user", "用 8080 端口", 1)]
    assert any("8080" in t and "端口？" in t for t in _texts(turns))  # a reply that says something keeps the question


def test_an_opinion_is_the_persons_only_when_they_hold_it() -> None:
    assert chinese.cue("我觉得这个配色太暗了") == "opinion"
    assert chinese.cue("如果你觉得有更好的方案也可以提出来") != "opinion"


def test_a_long_chinese_turn_keeps_the_same_budget_per_turn() -> None:
    text = "".join(f"我在第{k}个项目里用的是方案{k}。" for k in range(1, 15))
    drafts = _drafts([_t("user", text)])
    assert 1 < len(drafts) <= PERSON_PER_TURN  # split into sentences, kept within the turn's share


@given(st.text(alphabet="我们以后不要别记住用是在吗？。！；，「」 abc123", max_size=200))
def test_any_chinese_text_is_classified_without_error(text: str) -> None:
    assert chinese.cue(text) in (None, "question", "instruction", "changed", "decision", "opinion", "self", "request")
    assert chinese.statement_of(text) in text or chinese.statement_of(text) == text


def test_an_outcome_the_agent_reports_in_chinese_is_kept() -> None:
    turn = _t("assistant", "已更新 `config.toml`，把超时改成 30 秒。")
    drafts = _drafts([_t("user", "超时太短了", 0), _t("tool", "exit status 0"), turn])  # a tool ran: it acted
    assert any(d.speaker == "assistant" and "config.toml" in d.draft.content for d in drafts), drafts


def test_a_sentence_that_opens_like_a_question_word_but_states_is_no_question() -> None:
    assert chinese.cue("可以，就用 Postgres 吧。") == "decision"  # "OK, use Postgres": agreeing, not asking
    assert chinese.cue("什么都不要改，保持原样。") == "instruction"  # "change nothing"
    assert chinese.cue("哪怕很慢也要用本地模型。") != "question"  # "even if slow, use the local model"
    assert chinese.cue("可以帮我看看这个吗？") == "question"
    assert chinese.cue("什么是留存率") == "question"
