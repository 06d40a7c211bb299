"""A synthetic agent memory for the time-aware relationship bench, with questions and their true answers.

From one seed (``random.Random(seed)``, byte-identical output for the same arguments) it builds a world of
``people`` persons over ``years`` of daily logs: each person has a home city, usually a job (company and
role), sometimes a partner and a few likes, all of which change over time (moves, job switches, gaps
between jobs, promotions, break-ups, new and dropped likes). About 5% of the change events are logged
late (30-400 days after they happened, with their ISO date in the sentence) and never overturn a newer
value; about 3% of the job and partner relations are ended with no replacement (retractions).

The memory is one ``memory/YYYY-MM-DD.md`` file per day: a ``# YYYY-MM-DD`` heading, a few lines of
filler log and a ``## Retain`` section of bullets (spec 004) naming their subject as ``@[First Last]``.
It comes in two forms that describe the same events:

* ``explicit``: the prose sentence followed by Dataview-style inline fields, for example
  ``- W @[Ines Moreau]: Moved to Lisbon. [lives_in:: @Lisbon]``; an end negates the predicate:
  ``[!works_at:: @[Vantor Labs]]``. Predicates: lives_in, works_at, role, partner, likes.
* ``prose``: the same sentence alone (``- W @[Ines Moreau]: Moved to Lisbon.``).

The questions (current, as-of and as-known-at place of living, current and as-of employer, and who works
at a company now) are answered from the generator's own timelines, never from the Markdown.

    .venv/bin/python bench/graph_data.py --form prose --people 50 [--seed 7] [--years 5] [--day 2023-04-10]
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import time
from dataclasses import dataclass, field
from datetime import date, timedelta

FIRST = (
    "Ines", "Tom", "Maya", "Leo", "Sofia", "Noah", "Amara", "Lucas", "Priya", "Ethan",
    "Hana", "Mateo", "Chloe", "Omar", "Freya", "Daniel", "Yuki", "Samuel", "Zara", "Felix",
    "Nadia", "Hugo", "Elena", "Kofi", "Clara", "Arjun", "Lena", "Marco", "Aisha", "Jonas",
    "Rosa", "Ivan", "Mei", "Oscar", "Leila", "Adrian", "Ingrid", "Tariq", "Julia", "Rafael",
    "Anika", "Pablo", "Sara", "Emil", "Naomi", "Diego", "Alice", "Kenji", "Beatriz", "Victor",
    "Ruth", "Malik", "Eva", "Simon", "Lucia", "Theo", "Farah", "Nils", "Grace", "Andre",
)  # fmt: skip
LAST = (
    "Moreau", "Alvarez", "Okafor", "Lindqvist", "Tanaka", "Novak", "Rossi", "Fischer", "Haddad", "Kowalski",
    "Silva", "Bennett", "Nakamura", "Dubois", "Mensah", "Petrov", "Larsen", "Costa", "Khan", "Weber",
    "Ibrahim", "Ortega", "Hughes", "Janssen", "Sato", "Romero", "Nielsen", "Baptiste", "Kaur", "Schmidt",
    "Ferreira", "Park", "Olsen", "Morales", "Varga", "Chen", "Adeyemi", "Keller", "Marchetti", "Byrne",
    "Horvat", "Reyes", "Lambert", "Ali", "Sorensen", "Duarte", "Quinn", "Mbeki", "Laurent", "Castillo",
    "Yilmaz", "Fontaine", "Brennan", "Akhtar", "Holm", "Serrano", "Walsh", "Iwata", "Nowak", "Gallo",
)  # fmt: skip
CITIES = (
    "Lisbon", "Porto", "Madrid", "Barcelona", "Paris", "Lyon", "Berlin", "Munich", "Hamburg", "Amsterdam",
    "Brussels", "Vienna", "Zurich", "Milan", "Rome", "Prague", "Warsaw", "Copenhagen", "Stockholm", "Oslo",
    "Helsinki", "Dublin", "London", "Edinburgh", "Manchester", "New York", "San Francisco", "Los Angeles",
    "Chicago", "Boston", "Seattle", "Toronto", "Montreal", "Mexico City", "São Paulo", "Buenos Aires",
    "Tokyo", "Cape Town", "Singapore", "Sydney",
)  # fmt: skip
COMPANIES = (
    "Vantor Labs", "Quillbright", "Kestrel Systems", "Lumenfield", "Brightmoor", "Halcyon Data", "Orbitel",
    "Copperleaf", "Northgate Robotics", "Tessellate", "Ferrowave", "Pinecrest Health", "Solvane",
    "Meridian Forge", "Glasswing", "Ardent Bio", "Cobaltic", "Driftwood Studio", "Emberline", "Fathom Metrics",
    "Granite Peak", "Helixa", "Ironbark", "Juniper Loop", "Kiteframe", "Lodestar Capital", "Mosaic Freight",
    "Nimbusware", "Oakhaven", "Parallax Media", "Quartzline", "Riverstone", "Saltmarsh Games",
    "Tidewater Energy", "Umbra Security", "Veridian Foods", "Wavecrest", "Xylo", "Yarrow Bank",
    "Zephyr Mobility", "Amberfall", "Bluefinch", "Cinderlake", "Duskward", "Evergale", "Foxglove Labs",
    "Gildmark", "Hollowpine", "Inkwell Press", "Jetstream Air", "Keystone Legal", "Larkspur",
    "Moonrise Analytics", "Nettlefield", "Opaline", "Pebblebrook", "Quintara", "Rookwise", "Silverbirch",
    "Thornbury Logistics",
)  # fmt: skip
ROLES = (
    "staff engineer", "product manager", "data scientist", "designer", "engineering manager",
    "software engineer", "senior software engineer", "sales lead", "marketing manager", "support engineer",
    "research scientist", "operations director", "accountant", "recruiter", "technical writer",
)  # fmt: skip
LIKES = (
    "jazz", "rock climbing", "Thai food", "chess", "sourdough baking", "trail running", "opera", "board games",
    "sushi", "cycling", "photography", "gardening", "science fiction", "yoga", "pottery", "surfing",
    "Italian food", "hiking", "podcasts", "vinyl records", "tennis", "salsa dancing", "birdwatching",
    "craft beer", "chamber music", "kayaking", "crossword puzzles", "street food", "indie films", "skiing",
)  # fmt: skip
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip

# The prose of every relation bullet. Placeholders: {city} {co} {old} {role} {a_role} ("a designer",
# "an accountant") {name} {thing} {date} (ISO) {month} ("April 2023", the log's month) {Poss} {poss}.
HOME = ("Lives in {city}.", "Is based in {city}.", "Calls {city} home.")
MOVE = (
    "Moved to {city}.",
    "Has been living in {city} since {month}.",
    "Relocated to {city} for the new job.",  # only when a job starts within 30 days of the move
    "Lives in {city} now.",
    "Just settled into a flat in {city}.",
)
MOVE_LATE = ("Moved to {city} on {date}.", "Relocated to {city} on {date}.", "Has lived in {city} since {date}.")
JOB0 = ("Works at {co} as {a_role}.", "Is {a_role} at {co}.")
JOIN = (
    "Joined {co} as {a_role}.",
    "Started a new job at {co} as {a_role}.",
    "Now works at {co} as {a_role}.",
    "Took {a_role} position at {co}.",
)
SWITCH = ("Switched from {old} to {co} as {a_role}.", "Left {old} for {co} to work as {a_role}.")
JOIN_LATE = ("Joined {co} as {a_role} on {date}.", "Started working at {co} as {a_role} on {date}.")
LEAVE = ("Left {co}.", "No longer works at {co}.", "Stepped down from {poss} role at {co}.")
LEAVE_LAST_WEEK = "Quit {co} last week."  # logged 7 days after the end
ROLE = (
    "Promoted to {role} at {co}.",
    "{Poss} title is now {role}.",
    "Moved into {a_role} role at {co}.",
    "Now {a_role} at {co}.",
)
ROLE_LATE = ("Was promoted to {role} at {co} on {date}.", "Became {a_role} at {co} on {date}.")
PARTNER0 = ("Is married to {name}.", "Is in a relationship with {name}.")
PARTNER = ("Married {name}.", "Started dating {name}.", "Is now with {name}.", "Got together with {name}.")
BREAKUP = (
    "Split up with {name}.",
    "{name} is now {poss} ex-partner.",
    "Broke up with {name}.",
    "Is no longer with {name}.",
)
LIKE = ("Loves {thing}.", "Has been really into {thing} lately.", "Likes {thing}.", "Is a big fan of {thing}.")
UNLIKE = (
    "No longer likes {thing}.",
    "Gave up on {thing}.",
    "Has lost interest in {thing}.",
    "Is not into {thing} anymore.",
)

FILLER_LOG = (
    "Quiet day; reviewed the backlog.", "Spent most of the morning on email.", "Long planning meeting today.",
    "Fixed a flaky test before lunch.", "Caught up on reading.", "Cleared out the inbox.",
    "Wrote up notes from the weekly sync.", "Paired on the importer for an hour.", "Rain all day; stayed in.",
    "Short day; left early.", "Reorganised the shared drive.", "Drafted the monthly update.",
    "Two calls back to back, then focus time.", "Sorted out the travel receipts.", "Tidied the task board.",
    "Read through the new proposal.", "Updated the onboarding checklist.", "Went for a long walk at lunch.",
    "Slow start, productive afternoon.", "Reviewed three pull requests.", "Prepared slides for the review.",
    "Spent an hour on the budget sheet.", "Nothing much happened.", "Answered support questions.",
    "Renewed the domain and the certificates.", "Tested the backup restore.", "Cleaned up old calendar invites.",
    "Planned the next sprint.", "Booked the meeting room for the offsite.", "Went through the reading list.",
)  # fmt: skip
FILLER_B = (
    "Reviewed the quarterly notes.", "Cleaned up the task list.", "Backed up the notes folder.",
    "Finished the weekly review.", "Archived old meeting notes.", "Renamed the project folders.",
    "Updated the contact list.", "Set up a new notebook for ideas.",
)  # fmt: skip
# About a person, no relation; the last two name a city or a company on purpose (a trip, a call).
FILLER_W = (
    "Asked about the train timetable.", "Sent over the slides from the workshop.", "Recommended a good book.",
    "Was out sick.", "Shared a recipe.", "Wants to catch up soon.", "Called about the shared document.",
    "Sent a photo from the weekend.", "Spent a weekend in {city}.", "Had a call with someone from {co}.",
)  # fmt: skip

PRONOUNS = {"he": "his", "she": "her", "they": "their"}
KINDS = ("current_live", "asof_live", "known_live", "works_now", "current_job", "asof_job")
_ENDS = ("leave", "breakup", "unlike")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Question:
    kind: str  # one of KINDS
    question: str
    person: str | None  # display name, as in the @[First Last] mention
    company: str | None
    date: str | None  # ISO date of as-of / known-at questions, None for "now"
    answer: tuple[str, ...]  # a city, a company, or (works_now) the people, sorted
    stale: tuple[str, ...]  # other values the subject had, not true at that time


@dataclass(frozen=True)
class Dataset:
    files: dict[str, str]  # "memory/2022-03-14.md" -> Markdown
    questions: list[Question]
    today: str  # the day after the last log
    relations: int  # relation statements written (one per inline field of the explicit form, in both forms)
    counts: dict[str, int]  # events by type


@dataclass
class _Ev:
    """One relation event: true from ``valid`` (day index), written on ``log``."""

    valid: int
    log: int
    person: int
    kind: str  # home move job0 join switch leave role partner0 partner breakup like unlike
    obj: str  # city, company, role, partner name or liked thing
    role: str = ""  # job starts: the role
    ctx: str = ""  # switch: the old company; role change: the company
    lastweek: bool = False
    late: bool = False
    lo: int = 0  # the days a reader could take the change for (set when rendered)
    hi: int = 0


@dataclass
class _Stint:
    start: int
    end: int | None
    co: str
    role: str
    how: str  # job0 | join | switch
    end_how: str = ""  # switch | leave | retract
    role_days: list[int] = field(default_factory=list)


@dataclass
class _Person:
    name: str
    pron: str
    intro: int
    lives: list[_Ev] = field(default_factory=list)
    jobs: list[_Ev] = field(default_factory=list)
    roles: list[_Ev] = field(default_factory=list)
    partners: list[_Ev] = field(default_factory=list)
    likes: list[_Ev] = field(default_factory=list)


def _spaced(rng: random.Random, k: int, lo: int, hi: int, gap: int) -> list[int]:
    """``k`` sorted days in [lo, hi], at least ``gap`` apart (fewer when they do not fit)."""
    while k > 0:
        if hi - lo + 1 >= k:
            for _ in range(30):
                days = sorted(rng.sample(range(lo, hi + 1), k))
                if all(b - a >= gap for a, b in itertools.pairwise(days)):
                    return days
        k -= 1
    return []


def _other(rng: random.Random, items: tuple[str, ...] | list[str], not_: str | None) -> str:
    while True:
        x = rng.choice(items)
        if x != not_:
            return x


def _a(role: str) -> str:
    return ("an " if role[0] in "aeiou" else "a ") + role


def _mention(name: str) -> str:
    return "@" + name if _WORD.fullmatch(name) else f"@[{name}]"


def _add_years(d: date, years: int) -> date:
    try:
        return d.replace(year=d.year + years)
    except ValueError:  # 29 February
        return d.replace(year=d.year + years, day=28)


class _World:
    def __init__(self, rng: random.Random, people: int, n: int) -> None:
        self.rng = rng
        self.n = n  # days logged: 0 .. n-1; day n is "today"
        names: list[str] = []
        taken: set[str] = set()
        # Beyond half of FIRST x LAST, names take a middle initial ("Ines K. Moreau"): a bigger world for the
        # latency rows. Up to that size the draws, and so the bytes, are those of the smaller worlds.
        self.wide = people > len(FIRST) * len(LAST) // 2
        while len(names) < people:
            name = self.name()
            if name not in taken:
                taken.add(name)
                names.append(name)
        self.taken = taken
        intro_span = min(28, n)
        self.people = [_Person(name, rng.choice(("he", "she", "they")), rng.randrange(intro_span)) for name in names]
        companies = list(COMPANIES)
        rng.shuffle(companies)
        # A few big employers and many small ones, so that most companies have a handful of people.
        self.companies = companies
        self.co_weights = [12.0 if i < 12 else 1.0 for i in range(len(companies))]
        self.reserved: dict[int, list[tuple[int, int]]] = {}

    def company(self, not_: str | None) -> str:
        while True:
            co = self.rng.choices(self.companies, self.co_weights)[0]
            if co != not_:
                return co

    def build(self) -> None:
        rng = self.rng
        for i, p in enumerate(self.people):
            self.plan_lives(i, p)
            self.plan_jobs(i, p)
        plans = [(rng.random() < 0.35, rng.randint(0, 2)) for _ in self.people]
        pool = [i for i, (first, k) in enumerate(plans) if not first and k == 0]
        for i, p in enumerate(self.people):
            if plans[i][0] or plans[i][1]:
                self.plan_partners(i, p, plans[i][0], plans[i][1], pool)
        for i, p in enumerate(self.people):
            self.plan_likes(i, p)
        for p in self.people:
            self.make_late(p)

    def plan_lives(self, i: int, p: _Person) -> None:
        rng = self.rng
        city = rng.choice(CITIES)
        p.lives.append(_Ev(p.intro, p.intro, i, "home", city))
        for d in _spaced(rng, rng.randint(1, 4), p.intro + 30, self.n - 1, 45):
            city = _other(rng, CITIES, city)
            p.lives.append(_Ev(d, d, i, "move", city))

    def plan_jobs(self, i: int, p: _Person) -> None:
        rng, n = self.rng, self.n
        stints: list[_Stint] = []
        cur: _Stint | None = None
        last_co: str | None = None
        if rng.random() < 0.9:
            cur = _Stint(p.intro, None, self.company(None), rng.choice(ROLES), "job0")
        days = _spaced(rng, rng.randint(1, 4), p.intro + 40, n - 1, 60)
        for idx, d in enumerate(days):
            nxt = days[idx + 1] if idx + 1 < len(days) else n
            if cur is None:
                cur = _Stint(d, None, self.company(last_co), rng.choice(ROLES), "join")
                continue
            gap = rng.randint(20, 150)
            cur.end = d
            stints.append(cur)
            last_co = cur.co
            if rng.random() < 0.55 or (nxt == n and d + gap >= n - 20):
                cur.end_how = "switch"
                cur = _Stint(d, None, self.company(cur.co), rng.choice(ROLES), "switch")
            else:
                cur.end_how = "leave"
                cur = None
                if d + gap < nxt - 20:
                    cur = _Stint(d + gap, None, self.company(last_co), rng.choice(ROLES), "join")
        if cur is not None:
            stints.append(cur)
        for k, s in enumerate(stints):  # retractions: ended, never replaced
            if rng.random() < 0.03:
                lo, hi = s.start + 30, (s.end if s.end is not None else n) - 10
                if lo <= hi:
                    s.end, s.end_how = rng.randint(lo, hi), "retract"
                    del stints[k + 1 :]
                    break
        for _ in range(rng.randint(0, 3)):  # role changes within a stint
            if not stints:
                break
            st = rng.choice(stints)
            lo, hi = st.start + 30, (st.end if st.end is not None else n) - 30
            if hi - lo < 40:
                continue
            d = rng.randint(lo, hi)
            if all(abs(d - x) >= 30 for x in st.role_days):
                st.role_days.append(d)
        prev: _Stint | None = None
        for s in stints:
            old = prev.co if prev is not None and s.how == "switch" else ""
            p.jobs.append(_Ev(s.start, s.start, i, s.how, s.co, role=s.role, ctx=old))
            role = s.role
            for d in sorted(s.role_days):
                role = _other(rng, ROLES, role)
                p.roles.append(_Ev(d, d, i, "role", role, ctx=s.co))
            if s.end is not None and s.end_how in ("leave", "retract"):
                lastweek = rng.random() < 0.25 and s.end + 7 <= n - 1
                p.jobs.append(_Ev(s.end, s.end + 7 if lastweek else s.end, i, "leave", s.co, lastweek=lastweek))
            prev = s

    def plan_partners(self, i: int, p: _Person, first: bool, k: int, pool: list[int]) -> None:
        rng, n = self.rng, self.n
        rels: list[list[int]] = []  # [start, end (n: open)]
        cur: list[int] | None = [p.intro, n] if first else None
        days = _spaced(rng, k, p.intro + 60, n - 1, 90)
        for idx, d in enumerate(days):
            nxt = days[idx + 1] if idx + 1 < len(days) else n
            if cur is None:
                cur = [d, n]
                continue
            gap = rng.randint(30, 300)
            if d + gap < nxt - 30:
                cur[1] = d
                rels.append(cur)
                cur = [d + gap, n]
            elif nxt != n:
                cur[1] = d
                rels.append(cur)
                cur = None
        if cur is not None:
            rels.append(cur)
        for j, r in enumerate(rels):  # retractions
            if rng.random() < 0.03:
                lo, hi = r[0] + 30, r[1] - 10
                if lo <= hi:
                    r[1] = rng.randint(lo, hi)
                    del rels[j + 1 :]
                    break
        for r in rels:
            name = self.partner_name(i, r[0], r[1], pool)
            p.partners.append(_Ev(r[0], r[0], i, "partner0" if r[0] == p.intro else "partner", name))
            if r[1] < n:
                p.partners.append(_Ev(r[1], r[1], i, "breakup", name))

    def partner_name(self, i: int, s: int, e: int, pool: list[int]) -> str:
        """Someone of the set who has no partner plan and is free over [s, e), or a name from outside."""
        rng = self.rng
        if pool and rng.random() < 0.5:
            for _ in range(6):
                q = rng.choice(pool)
                if q != i and all(e <= a or b <= s for a, b in self.reserved.get(q, [])):
                    self.reserved.setdefault(q, []).append((s, e))
                    return self.people[q].name
        while True:
            name = self.name()
            if name not in self.taken:
                return name

    def name(self) -> str:
        rng = self.rng
        if self.wide:
            return f"{rng.choice(FIRST)} {rng.choice('ABCDEFGHJKLMNPRSTVW')}. {rng.choice(LAST)}"
        return f"{rng.choice(FIRST)} {rng.choice(LAST)}"

    def plan_likes(self, i: int, p: _Person) -> None:
        rng, n = self.rng, self.n
        for j, thing in enumerate(rng.sample(LIKES, rng.randint(2, 6))):
            d = p.intro if j == 0 and rng.random() < 0.5 else rng.randint(p.intro, n - 1)
            p.likes.append(_Ev(d, d, i, "like", thing))
            if rng.random() < 0.3 and d + 30 <= n - 1:
                e = rng.randint(d + 30, n - 1)
                p.likes.append(_Ev(e, e, i, "unlike", thing))
        p.likes.sort(key=lambda e: e.valid)

    def make_late(self, p: _Person) -> None:
        """Some moves, job starts and promotions are written 30-400 days late, after the next value."""
        rng, n = self.rng, self.n

        def late(ev: _Ev, nxt: _Ev) -> bool:
            lo, hi = max(ev.valid + 30, nxt.log + 1), min(ev.valid + 400, n - 1)
            if lo > hi or nxt.late or rng.random() >= 0.7:
                return False
            ev.log, ev.late = rng.randint(lo, hi), True
            return True

        skip = False
        for a, b in itertools.pairwise(p.lives):
            skip = not skip and a.kind == "move" and late(a, b)
        role_cos = {r.ctx for r in p.roles}
        skip = False
        for a, b in itertools.pairwise(p.jobs):
            ok = not skip and a.kind in ("join", "switch") and b.kind == "switch" and a.obj not in role_cos
            skip = ok and late(a, b)
        skip = False
        for a, b in itertools.pairwise(p.roles):
            skip = not skip and a.ctx == b.ctx and late(a, b)


def _value_at(evs: list[_Ev], d: int, known: bool = False) -> str | None:
    """The value of a single-valued predicate on day ``d``: true (all events), or as memory held it then."""
    best: _Ev | None = None
    for e in evs:
        if e.valid <= d and (not known or e.log <= d) and (best is None or e.valid >= best.valid):
            best = e
    return None if best is None or best.kind in _ENDS else best.obj


class _Renderer:
    def __init__(self, world: _World, day0: date, explicit: bool) -> None:
        self.w = world
        self.day0 = day0
        self.explicit = explicit
        self.relations = 0

    def iso(self, d: int) -> str:
        return (self.day0 + timedelta(days=d)).isoformat()

    def bullet(self, ev: _Ev, job_days: list[int]) -> str:
        rng = self.w.rng
        p = self.w.people[ev.person]
        poss = PRONOUNS[p.pron]
        day = self.day0 + timedelta(days=ev.log)
        ev.lo = ev.hi = ev.valid
        k = ev.kind
        fields: list[str]
        if k in ("home", "move"):
            if ev.late:
                tpl = rng.choice(MOVE_LATE)
            elif k == "home":
                tpl = rng.choice(HOME)
            else:
                options = [t for t in MOVE if "new job" not in t or any(abs(d - ev.valid) <= 30 for d in job_days)]
                tpl = rng.choice(options)
                if "{month}" in tpl:
                    ev.lo = ev.valid - (day.day - 1)
            fields = [f"[lives_in:: {_mention(ev.obj)}]"]
        elif k in ("job0", "join", "switch"):
            if ev.late:
                tpl = rng.choice(JOIN_LATE)
            elif k == "job0":
                tpl = rng.choice(JOB0)
            elif k == "switch":
                old_known = any(e.obj == ev.ctx and e.log <= ev.log for e in p.jobs if e.kind != "leave")
                tpl = rng.choice(JOIN + SWITCH if old_known else JOIN)
            else:
                tpl = rng.choice(JOIN)
            fields = [f"[works_at:: {_mention(ev.obj)}]", f"[role:: {ev.role}]"]
        elif k == "leave":
            tpl = LEAVE_LAST_WEEK if ev.lastweek else rng.choice(LEAVE)
            if ev.lastweek:
                ev.lo, ev.hi = ev.log - 14, ev.log
            fields = [f"[!works_at:: {_mention(ev.obj)}]"]
        elif k == "role":
            tpl = rng.choice(ROLE_LATE) if ev.late else rng.choice(ROLE)
            fields = [f"[role:: {ev.obj}]"]
        elif k in ("partner0", "partner"):
            tpl = rng.choice(PARTNER0 if k == "partner0" else PARTNER)
            fields = [f"[partner:: {_mention(ev.obj)}]"]
        elif k == "breakup":
            tpl = rng.choice(BREAKUP)
            fields = [f"[!partner:: {_mention(ev.obj)}]"]
        elif k == "like":
            tpl = rng.choice(LIKE)
            fields = [f"[likes:: {ev.obj}]"]
        else:
            tpl = rng.choice(UNLIKE)
            fields = [f"[!likes:: {ev.obj}]"]
        role = ev.role if k in ("job0", "join", "switch") else ev.obj
        text = tpl.format(
            city=ev.obj,
            co=ev.ctx if k == "role" else ev.obj,
            old=ev.ctx,
            role=role,
            a_role=_a(role),
            name=ev.obj,
            thing=ev.obj,
            date=self.iso(ev.valid),
            month=f"{MONTHS[day.month - 1]} {day.year}",
            poss=poss,
            Poss=poss.capitalize(),
        )
        self.relations += len(fields)
        line = f"- W @[{p.name}]: {text}"
        return line + " " + " ".join(fields) if self.explicit else line

    def filler(self, d: int) -> str:
        rng = self.w.rng
        if rng.random() < 0.4:
            return f"- B: {rng.choice(FILLER_B)}"
        for _ in range(10):
            p = rng.choice(self.w.people)
            if p.intro <= d:
                text = rng.choice(FILLER_W).format(city=rng.choice(CITIES), co=rng.choice(COMPANIES))
                return f"- W @[{p.name}]: {text}"
        return f"- B: {rng.choice(FILLER_B)}"

    def files(self) -> tuple[dict[str, str], int]:
        w, rng = self.w, self.w.rng
        by_day: list[list[_Ev]] = [[] for _ in range(w.n)]
        job_days: list[list[int]] = []
        for p in w.people:
            job_days.append([e.valid for e in p.jobs if e.kind in ("join", "switch")])
            for ev in p.lives + p.jobs + p.roles + p.partners + p.likes:
                by_day[ev.log].append(ev)
        files: dict[str, str] = {}
        fillers = 0
        for d in range(w.n):
            evs = sorted(by_day[d], key=lambda e: (e.person, e.valid, e.kind))
            bullets = [self.bullet(ev, job_days[ev.person]) for ev in evs]
            extra = rng.randint(0, 2) if bullets else rng.randint(1, 2)
            bullets += [self.filler(d) for _ in range(extra)]
            fillers += extra
            rng.shuffle(bullets)
            log = rng.sample(FILLER_LOG, rng.randint(1, 3))
            iso = self.iso(d)
            files[f"memory/{iso}.md"] = f"# {iso}\n\n" + "\n".join(log) + "\n\n## Retain\n" + "\n".join(bullets) + "\n"
        return files, fillers


def _counts(w: _World, fillers: int) -> dict[str, int]:
    c = dict.fromkeys(
        ("homes", "moves", "joins", "switches", "leaves", "roles", "partners", "breakups", "likes", "unlikes"), 0
    )
    c.update(late=0, retractions=0, filler=fillers)
    for p in w.people:
        for evs in (p.lives, p.jobs, p.roles, p.partners, p.likes):
            for j, e in enumerate(evs):
                c["late"] += e.late
                k = e.kind
                if k in ("leave", "breakup") and not any(x.kind not in _ENDS for x in evs[j + 1 :]):
                    c["retractions"] += 1
                    continue
                key = {
                    "home": "homes", "move": "moves", "job0": "joins", "join": "joins", "switch": "joins",
                    "leave": "leaves", "role": "roles", "partner0": "partners", "partner": "partners",
                    "breakup": "breakups", "like": "likes", "unlike": "unlikes",
                }[k]  # fmt: skip
                c[key] += 1
                c["switches"] += k == "switch"
    return c


class _Asker:
    def __init__(self, w: _World, day0: date, seed: int) -> None:
        self.w = w
        self.day0 = day0
        self.rng = random.Random(seed * 1_000_003 + 17)

    def iso(self, d: int) -> str:
        return (self.day0 + timedelta(days=d)).isoformat()

    @staticmethod
    def clear(evs: list[_Ev], d: int) -> bool:
        """At least 2 days from any change (and from the day it was written) of this predicate."""
        return all(not (e.lo - 2 < d < e.hi + 2) and abs(d - e.log) >= 2 for e in evs)

    @staticmethod
    def values(evs: list[_Ev], but: str | None) -> tuple[str, ...]:
        seen = dict.fromkeys(e.obj for e in sorted(evs, key=lambda e: e.valid) if e.kind not in _ENDS)
        return tuple(v for v in seen if v != but)

    def date_in(self, evs: list[_Ev], p: _Person, past: bool) -> int | None:
        """A day inside one validity interval of ``evs`` (a closed one when ``past``), clear of changes."""
        rng, n = self.rng, self.w.n
        starts = [e for e in evs if e.kind not in _ENDS]
        for _ in range(20):
            e = rng.choice(starts)
            later = [x.valid for x in evs if x.valid > e.valid]
            end = min(later) if later else n
            if past and end == n and len(starts) > 1:
                continue
            lo, hi = max(e.valid, p.intro) + 2, end - 3
            if lo > hi:
                continue
            d = rng.randint(lo, hi)
            if self.clear(evs, d) and _value_at(evs, d) is not None:
                return d
        return None

    def ask(self, total: int = 1000) -> list[Question]:
        w, rng, n = self.w, self.rng, self.w.n
        people = w.people
        current_job = {i: _value_at(p.jobs, n) for i, p in enumerate(people)}
        staff: dict[str, list[str]] = {}
        former: dict[str, list[str]] = {}
        for i, p in enumerate(people):
            co = current_job[i]
            if co is not None:
                staff.setdefault(co, []).append(p.name)
            for old in self.values(p.jobs, co):
                former.setdefault(old, []).append(p.name)
        companies = [co for co in w.companies if 1 <= len(staff.get(co, [])) <= 8]
        per = total // len(KINDS)
        wn = min(per, len(companies))
        per_other = (total - wn) // (len(KINDS) - 1)
        out: list[Question] = []

        for co in sorted(rng.sample(companies, wn), key=w.companies.index):
            out.append(
                Question(
                    "works_now",
                    f"Who works at {co} now?",
                    None,
                    co,
                    None,
                    tuple(sorted(staff[co])),
                    tuple(sorted(former.get(co, []))),
                )
            )
        order = list(range(len(people)))
        for i in rng.sample(order, min(per_other, len(order))):
            p = people[i]
            city = _value_at(p.lives, n)
            assert city is not None
            out.append(
                Question(
                    "current_live",
                    f"Where does {p.name} live now?",
                    p.name,
                    None,
                    None,
                    (city,),
                    self.values(p.lives, city),
                )
            )
        employed = [i for i in order if current_job[i] is not None]
        for i in rng.sample(employed, min(per_other, len(employed))):
            p, co = people[i], current_job[i]
            assert co is not None
            out.append(
                Question(
                    "current_job", f"Where does {p.name} work now?", p.name, co, None, (co,), self.values(p.jobs, co)
                )
            )
        asked = 0
        for i in rng.sample(order, len(order)):
            if asked == per_other:
                break
            p = people[i]
            d = self.date_in(p.lives, p, rng.random() < 0.8)
            if d is None:
                continue
            city = _value_at(p.lives, d)
            assert city is not None
            out.append(
                Question(
                    "asof_live",
                    f"Where did {p.name} live on {self.iso(d)}?",
                    p.name,
                    None,
                    self.iso(d),
                    (city,),
                    self.values(p.lives, city),
                )
            )
            asked += 1
        asked = 0
        for i in rng.sample(order, len(order)):
            if asked == per_other:
                break
            p = people[i]
            if not p.jobs:
                continue
            d = self.date_in(p.jobs, p, rng.random() < 0.8)
            if d is None:
                continue
            co = _value_at(p.jobs, d)
            assert co is not None
            out.append(
                Question(
                    "asof_job",
                    f"Where did {p.name} work on {self.iso(d)}?",
                    p.name,
                    co,
                    self.iso(d),
                    (co,),
                    self.values(p.jobs, co),
                )
            )
            asked += 1
        out += self.known(per_other)
        return out

    def known(self, count: int) -> list[Question]:
        """Record-time questions: at least half on days where a late move was not yet written."""
        w, rng, n = self.w, self.rng, self.w.n
        chosen: dict[int, int] = {}
        late = [(i, k) for i, p in enumerate(w.people) for k, e in enumerate(p.lives[:-1]) if e.late]
        for i, k in rng.sample(late, len(late)):
            if len(chosen) >= count // 2 + count % 2:
                break
            p = w.people[i]
            lo, hi = p.lives[k].valid + 2, p.lives[k + 1].valid - 2
            for _ in range(10):
                if i in chosen or lo > hi:
                    break
                d = rng.randint(lo, hi)
                if self.clear(p.lives, d) and _value_at(p.lives, d, known=True) != _value_at(p.lives, d):
                    chosen[i] = d
        for i in rng.sample(range(len(w.people)), len(w.people)):
            if len(chosen) >= count:
                break
            p = w.people[i]
            for _ in range(10):
                d = rng.randint(p.intro + 2, n - 3) if p.intro + 2 <= n - 3 else -1
                if i not in chosen and d >= 0 and self.clear(p.lives, d):
                    chosen[i] = d
        out: list[Question] = []
        for i, d in chosen.items():
            p = w.people[i]
            city = _value_at(p.lives, d, known=True)
            assert city is not None
            q = f"What did memory hold about where {p.name} lived on {self.iso(d)}?"
            out.append(Question("known_live", q, p.name, None, self.iso(d), (city,), self.values(p.lives, city)))
        return out


def generate(
    seed: int = 7, people: int = 1000, years: int = 5, form: str = "explicit", start: str = "2021-01-01"
) -> Dataset:
    """The memory files (one per day), the questions and their answers, for one seed. Same seed, same bytes;
    the two forms hold the same events (only the inline fields differ)."""
    if form not in ("explicit", "prose"):
        raise ValueError(f"form is 'explicit' or 'prose', not {form!r}")
    if not 1 <= people <= len(FIRST) * len(LAST) * 4:
        raise ValueError(f"people must be 1..{len(FIRST) * len(LAST) * 4}")
    day0 = date.fromisoformat(start)
    n = (_add_years(day0, years) - day0).days
    if n < 60:
        raise ValueError("years must be at least 1")
    world = _World(random.Random(seed), people, n)
    world.build()
    renderer = _Renderer(world, day0, form == "explicit")
    files, fillers = renderer.files()
    questions = _Asker(world, day0, seed).ask()
    return Dataset(files, questions, renderer.iso(n), renderer.relations, _counts(world, fillers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--form", choices=("explicit", "prose"), default="explicit")
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--years", type=int, default=5)
    parser.add_argument("--day", default="", help="the day whose file is printed (default: the busiest)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    ds = generate(args.seed, args.people, args.years, args.form)
    took = time.perf_counter() - t0
    size = sum(len(t.encode()) for t in ds.files.values())
    print(f"{len(ds.files)} files, {size / 1e6:.1f} MB, today {ds.today}, {ds.relations} relations, {took:.2f} s")
    print(" ".join(f"{k}={v}" for k, v in ds.counts.items()))
    by_kind = {k: sum(q.kind == k for q in ds.questions) for k in KINDS}
    print(f"{len(ds.questions)} questions: " + " ".join(f"{k}={v}" for k, v in by_kind.items()))
    for k in KINDS:
        q = next((q for q in ds.questions if q.kind == k), None)
        if q is not None:
            print(f"  {q.question} -> {', '.join(q.answer)} (stale: {', '.join(q.stale) or '-'})")
    path = f"memory/{args.day}.md" if args.day else max(ds.files, key=lambda f: ds.files[f].count("\n- "))
    print(f"\n{path}:\n{ds.files[path]}")


if __name__ == "__main__":
    main()
