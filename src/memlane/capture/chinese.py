"""What a sentence the person wrote in Chinese says, read by Chinese cues.

The person rules of :mod:`memlane.capture.draft` are English word lists ("I use", "always", "let's"): a sentence in
Chinese only passed their generic "other statement" class, under the threshold, so a person who writes Chinese had
almost nothing kept. Here a Chinese sentence (simplified or traditional script) is sorted by its own words into the
classes the English rules give, and :mod:`memlane.capture.draft` scores those classes the same in both languages,
so the budget ranks them alike:

- ``instruction``: a rule for later work: 以后 / 今后 / 从现在开始 (from now on), 永远 (always), 记住 / 记得 said as
  an imperative, 不要 / 别 / 不准 / 禁止 (never), 必须 / 务必 / 一定要 / 千万 (make sure), 提醒我 (remind me);
- ``changed``: a value that changed (改成 / 调到 / 提高到 / 推迟到 ... with a number);
- ``decision``: 我决定, 就用, 改用, 换成, 命名为 / 叫做 / 取名, 设为, "用 X 吧", 我要 / 我希望 / 我需要, and a request
  that sets something ("请改成 ...");
- ``opinion``: 喜欢, 讨厌, 觉得, 认为, 同意, 担心, 偏好;
- ``self``: what the person says of themselves: 我 / 我们 + 是 / 在 / 用 / 有 / 叫 / 住 / 做 / 的 / 正在 / 每天 ...;
- ``question``: ends in ？ / 吗 / 呢, or starts as one (请问, 是否, 为什么, 怎么 ...): not a statement;
- ``request``: asks the agent to do something now (请 / 帮我 / 麻烦 / 你先 ...) and sets nothing: not a fact.

Japanese and Korean are not read here (their cues differ): a sentence in them keeps the generic class. Every pattern
is bounded: linear on hostile input.
"""

from __future__ import annotations

import re

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\uac00-\ud7af]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
MIN_HAN = 4  # characters: fewer is a word dropped into another language's sentence, not a Chinese sentence

_INSTRUCTION = re.compile(
    r"(?:^|[，,：:；;\s]|我[们們]?|你)以[后後]|今[后後]|[从從][现現]在[开開]始|[从從]今天?[开開]始|永[远遠]|"
    r"千[万萬](?=[不别別要记記])|[务務]必|必[须須]|一定要|"
    r"(?<![我们們不还還也])[记記](?:住|得)|提醒我|不准|不[许許]|禁止|不可以|不能再|"
    r"(?<![要需只])不要(?![紧緊])|(?:^|[，,：:；;\s])(?:[请請]|你)?[别別](?![人的])"
)
_CHANGED = re.compile(
    r"(?:改|[调調]|[换換]|提高|降低?|增加|[减減]少|延[长長]|[缩縮]短|推[迟遲]|提前|升|[涨漲]|[从從].{1,20})"
    r"(?:[成为為到至]|整[为為到])[^。！？；]{0,20}\d|(?:[现現]在|目前|已[经經]?)(?:是|有|[达達]到|到了)[^。！？；]{0,20}\d|"
    r"不再"
)
_DECISION = re.compile(
    r"[决決]定|就用|就叫|改用|改成|改[为為]|[换換]成|[换換]用|命名|取名|叫做|名字叫|名[称稱][为為是]|"
    r"[设設](?:[为為成]|置[为為成]|定[为為成])|定[为為](?!什)|[选選](?:择|擇)?了|我[们們]?[选選挑]|用[^。！？；，,]{1,24}吧|"
    r"我[们們]?(?:要|想要|希望|需要|打算|准备|準備|[计計][划劃])(?![问問]|知道|了解|[看查]|[请請])|"
    r"^(?:[请請]|[帮幫]我)(?:你)?(?:把|用|改|加|设|設|叫|命名|保留|[删刪]|移|放|[换換]|以)"
)
_FEELS = r"(?:喜[欢歡]|[讨討][厌厭]|[觉覺]得|[认認][为為]|同意|[担擔]心|[紧緊][张張]|偏好|最[爱愛]|受不了|[满滿]意)"
# held by the person: after 我 (not about someone else's view), or with the subject dropped at the sentence's start
_OPINION = re.compile(rf"我[们們]?[^，,。！？；你您他她]{{0,8}}?{_FEELS}|^(?:很|真|非常|也|都|[还還]|超|最)?{_FEELS}")
_SELF = re.compile(
    r"我[们們]?(?:的|是|在|用|有|叫|住|做|会|會|正在|目前|[现現]在|平[时時]|一直|通常|已[经經]|每)|[这這]是我|"
    r"我[们們]?[^。！？；]{0,20}每[天周週月晚年]"
)
_QUESTION_END = re.compile(r"(?:[？?]|[吗嗎呢](?:[。.！!\s]*))$")
# Not 可以 before a pause ("可以，就用 Postgres 吧" agrees), nor 什么都 / 哪怕 / 多少都 ("什么都不要改": change
# nothing): these open statements
_QUESTION_START = re.compile(
    r"^(?:[请請]?[问問](?:一下)?|是否|能否|能不能|可不可以|可以(?![，,。.!！\s]|$)|有[没沒]有|[为為]什[么麼]|[为為]何|"
    r"怎[么麼样樣]|如何|什[么麼](?![都也])|哪(?!怕)|[谁誰](?![都也])|多少(?![都也]))"
)
_ASKS = re.compile(
    r"[请請][问問]|是否|能否|能不能|可不可以|有[没沒]有|[为為]什[么麼]|怎[么麼]|如何|什[么麼]|哪[个個里裡些]|多少"
)
_REQUEST = re.compile(
    r"^(?:然[后後]|那|再|先|接着|接著|另外)?[，,]?\s*(?:[请請]|[帮幫]我|麻[烦煩]|你(?:[帮幫给給去先再来來]|可以)|[给給]我|"
    r"[继繼][续續]|[开開]始)"
)
_ADDRESSED = re.compile(r"[你您]")
_CLAUSE = re.compile(r"[，,；;：:]")


def is_chinese(text: str) -> bool:
    """Written in Chinese: at least MIN_HAN Han characters, more than its kana and hangul, and as many as twice its
    Latin words (a code word or a name dropped into a Chinese sentence is common; the reverse is an English one)."""
    han = len(HAN.findall(text))
    return han >= MIN_HAN and han > len(_KANA_HANGUL.findall(text)) and han >= 2 * len(_LATIN_WORD.findall(text))


def statement_of(sentence: str) -> str:
    """A sentence that first states and then asks ("我用的是 Arch，怎么装这个？"): the statement before the clause
    that asks, when it says something of the person; any other sentence as it is."""
    if not _QUESTION_END.search(sentence) or _QUESTION_START.match(sentence):
        return sentence
    ask = _ASKS.search(sentence)
    if ask is None:
        return sentence
    cuts = [m.start() for m in _CLAUSE.finditer(sentence, 0, ask.start())]
    if not cuts:
        return sentence
    head = sentence[: cuts[-1]].rstrip()
    if len(HAN.findall(head)) >= 2 * MIN_HAN and "我" in head:
        return head
    return sentence


def cue(sentence: str) -> str | None:
    """The class of a Chinese sentence (see the module's docstring), or None: a statement with no cue."""
    s = sentence.strip()
    if _QUESTION_END.search(s) or _QUESTION_START.match(s):
        return "question"
    if _INSTRUCTION.search(s):
        return "instruction"
    if _CHANGED.search(s):
        return "changed"
    if _DECISION.search(s):
        return "decision"
    if _REQUEST.match(s):
        return "request"
    if _OPINION.search(s):
        return "opinion"
    if _SELF.search(s):
        return "self"
    return None


def addressed(sentence: str) -> bool:
    """Says 你 / 您: addressed to the agent (the chat with it, not the person's world)."""
    return bool(_ADDRESSED.search(sentence))


def named(sentence: str) -> bool:
    """Names something: a quoted name (「」 『』 《》 “”), a number, or a Latin word or identifier in the sentence."""
    return bool(re.search(r"[「『《“][^」』》”\n]{1,60}[」』》”]|\d|[A-Za-z][A-Za-z0-9_.-]{1,60}", sentence))


# The agent's outcome said in Chinese: 已更新 / 已經 push / 已修復 (has updated, pushed, fixed), 完成 ..., 原因是 (the
# cause is). Read only in the agent's turns, after the same trust checks as the English outcomes.
_DONE = re.compile(
    r"已[经經]?\s*(?:(?:push|commit|deploy|merge|update|fix|install|upload|release)(?:ed)?\b|更新|修改|修[复復]|修好|新增|加入|加上|建立|[创創]建|[删刪]除|移除|部署|完成|改[成为為好]|[换換]成|"
    r"[设設][定置]|安[装裝]|提交|推送|上[传傳]|重[写寫]|替[换換])|^完成[了]?[，,:：]|根本原因|原因是|[问問][题題]出在"
)


def done(sentence: str) -> bool:
    """The agent reports, in Chinese, what it changed, made or found to be the cause."""
    return bool(_DONE.search(sentence))


_ASSENT = re.compile(
    r"^(?:ok|好|好的|要|可以|行|[对對]|是|是的|嗯|[没沒][问問][题題]|[开開]始|[继繼][续續]|[谢謝]{1,2}|收到|了解|明白|[当當]然)"
    r"[\s!！。.,，~]{0,3}(?:[开開]始|[继繼][续續]|吧|了|啊|呀|[谢謝]{1,2})?[\s!！。.~]{0,3}$",
    re.I,
)


def assent(reply: str) -> bool:
    """A reply in Chinese that only says yes or go on ("好的", "要", "ok 开始"): nothing to ask for later."""
    return bool(_ASSENT.match(reply.strip()))
