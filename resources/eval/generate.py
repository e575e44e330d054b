"""Writes quick-v1.jsonl and quick-v2.jsonl, the console's quality-gate evaluation sets (see README.md).

Not used at run time: the console reads the JSONL it wrote. Run it again only to make a new
version (a new file name): results recorded against a version stay comparable only if its file
never changes. Deterministic (fixed seed): ``python resources/eval/generate.py`` rewrites the
same bytes of both files.

quick-v2 asks the same 253 questions (same ids, prompts and options) as quick-v1, with two
changes: every regex pattern is anchored (``四`` no longer matches 十四 or 四十, ``seven`` no
longer matches "twenty-seven", ``红`` no longer matches 粉红色), and every item names the fact it
asks (``fact``): the regex and choice forms of one question and its English and Chinese twins
share one, so a lost fact counts once against the gate's regression cap.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

SEED = 23
rng = random.Random(SEED)
items: list[dict[str, Any]] = []

EN_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
ZH_DIGITS = "零一二三四五六七八九十"


def zh_number(n: int) -> str:
    if n <= 10:
        return ZH_DIGITS[n]
    if n < 20:
        return "十" + ZH_DIGITS[n - 10]
    if n < 100:
        return ZH_DIGITS[n // 10] + "十" + (ZH_DIGITS[n % 10] if n % 10 else "")
    return {100: "一百", 366: "三百六十六"}.get(n, str(n))


def number_pattern(n: int, lang: str, question: str = "") -> str:
    digits = f"{n:,}".replace(",", ",?")  # 1000 or 1,000
    alts = [rf"(?<![\d.,]){digits}(?![\d])"]
    if lang == "en" and n < len(EN_WORDS):
        alts.append(rf"\b{EN_WORDS[n]}\b")
    if lang == "zh" and zh_number(n) != str(n):
        # "三角形有几条边？": the numeral is in the question; count it only with a measure word.
        alts.append(zh_number(n) + ("(?=条|个|天)" if zh_number(n) in question else ""))
    return "|".join(alts)


# -- quick-v2's anchored patterns ------------------------------------------------------------------
#: characters that make a Chinese numeral longer (四 inside 十四, 四十, 一百零四, 四点五, 第四, 负四)
ZH_NUMERAL_CHARS = "零〇一二两三四五六七八九十百千万亿"
#: English words that make a number word another number (twenty-seven, one hundred seven)
EN_NUMBER_BEFORE = (
    "twenty",
    "thirty",
    "forty",
    "fifty",
    "sixty",
    "seventy",
    "eighty",
    "ninety",
    "hundred",
    "thousand",
    "negative",
    "minus",
    "point",
)
#: colour characters: one next to another makes a different colour (黄绿色, 粉红色, 蓝绿色)
ZH_COLOUR_CHARS = "红橙黄绿青蓝紫黑白灰粉棕褐"
#: characters before a colour character that make a word of another meaning (明白, 空白, 坦白)
ZH_NOT_COLOUR_BEFORE = {"白": "明空坦告表"}


EN_ONES = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
EN_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def en_words(n: int) -> str:
    """n < 100 in words, as a pattern: twenty-seven or twenty seven."""
    if n < 20:
        return EN_ONES[n]
    return EN_TENS[n // 10] + (f"[- ]{EN_ONES[n % 10]}" if n % 10 else "")


def zh_anchored(numeral: str) -> str:
    return f"(?<![{ZH_NUMERAL_CHARS}第负]){numeral}(?![{ZH_NUMERAL_CHARS}]|点[{ZH_NUMERAL_CHARS}])"


def number_pattern_v2(n: int, lang: str, question: str = "") -> str:
    """quick-v1's alternatives, each anchored: a digit string not inside a longer number, a
    decimal or a negative (15 refuses 115, 150, 1.5, 15.5, -15); a number word not inside
    another number (seven refuses seventeen, twenty-seven, twenty seven, seven hundred); a
    Chinese numeral not inside a longer one (四 refuses 十四, 四十, 二十四, 四百, 四点五)."""
    digits = f"{n:,}".replace(",", ",?")
    alts = [rf"(?<![\d.,\-−]){digits}(?![\d]|[.,]\d)"]
    if lang == "en" and n < 100:  # quick-v1 had words up to twelve; "Fifteen." is right too
        before = "".join(f"(?<!{w}[ -])" for w in EN_NUMBER_BEFORE) + "(?<!hundred and )"
        ones = "|".join(EN_ONES[1:10])
        after = r"(?![a-z-])(?! hundred| thousand| point)"
        if n >= 20 and n % 10 == 0:  # thirty, not thirty one
            after += f"(?! (?:{ones})(?![a-z]))"
        alts.append(rf"(?<![a-z-]){before}{en_words(n)}{after}")
    if lang == "zh" and zh_number(n) != str(n):
        alts.append(zh_anchored(zh_number(n)) + ("(?=条|个|天)" if zh_number(n) in question else ""))
    return "|".join(alts)


def word_pattern_v2(word: str) -> str:
    """An English word not inside a longer one, hyphens included (green refuses yellow-green); the
    letters around it are Latin ones, so 是Tuesday。 counts and Tuesdays does not (scored case-blind)."""
    return rf"(?<![a-z-]){word}(?![a-z-])"


def zh_colour_pattern_v2(colour: str) -> str:
    """黄 as a colour: not beside another colour character (黄绿色, 橙黄色) and followed by 色, 的
    or the end of the phrase (黄昏, 白天, 黑夜 are not colours)."""
    others = ZH_COLOUR_CHARS.replace(colour, "")
    before = others + ZH_NOT_COLOUR_BEFORE.get(colour, "")
    return f"(?<![{before}]){colour}(?![{others}])(?=色|的|颜色|[。，,.!！\\s]|$)"


def zh_city_pattern_v2(city: str) -> str:
    """A city name not the start of a longer place name (罗马 refuses 罗马尼亚)."""
    return city + ("(?!尼亚)" if city == "罗马" else "")


def slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


def add(kind: str, lang: str, topic: str, prompt: str, fact: str, **fields: Any) -> None:
    n = sum(1 for i in items if i["lang"] == lang and i["topic"] == topic and i["kind"] == kind) + 1
    items.append(
        {
            "id": f"{lang}-{topic}-{kind}-{n:02d}",
            "lang": lang,
            "topic": topic,
            "kind": kind,
            "prompt": prompt,
            **fields,
            "fact": fact,
        }
    )


def regex(lang: str, topic: str, question: str, answer: str, pattern: str, *, fact: str, v2: str) -> bool:
    """Adds the item unless its pattern already matches the question (an echo would pass);
    ``v2`` is quick-v2's anchored pattern (it must not match the question either)."""
    import re

    if re.search(pattern, question):
        return False
    assert not re.search(v2, question, re.IGNORECASE), (question, v2)
    suffix = " Answer in a few words." if lang == "en" else "请简短回答。"
    add("regex", lang, topic, question + suffix, fact, answer=answer, pattern=pattern, pattern_v2=v2)
    return True


def choice(lang: str, topic: str, question: str, right: str, wrong: list[str], *, fact: str) -> None:
    options = [right] + wrong[:3]
    rng.shuffle(options)
    prompt = f"Question: {question}\nAnswer:" if lang == "en" else f"问题：{question}\n答案："
    add("choice", lang, topic, prompt, fact, choices=options, answer=options.index(right))


def numeric(lang: str, topic: str, question: str, n: int, fact: str, *, numerals_in: str = "") -> bool:
    """A number question (``numerals_in``: the question, when its Chinese numerals count)."""
    return regex(
        lang,
        topic,
        question,
        str(n),
        number_pattern(n, lang, numerals_in),
        fact=fact,
        v2=number_pattern_v2(n, lang, numerals_in),
    )


def sum_fact(a: int, b: int) -> str:
    return f"add:{min(a, b)}+{max(a, b)}"


def distractors(n: int, spread: int = 4) -> list[str]:
    pool = [m for m in range(max(0, n - spread), n + spread + 1) if m != n]
    return [str(m) for m in rng.sample(pool, 3)]


# -- arithmetic ---------------------------------------------------------------------------------
for _ in range(16):
    a, b = rng.randint(2, 20), rng.randint(2, 20)
    numeric("en", "arithmetic", f"What is {a} + {b}?", a + b, sum_fact(a, b))
added = 0
while added < 8:
    a, b = rng.randint(10, 30), rng.randint(1, 9)
    added += numeric("en", "arithmetic", f"What is {a} minus {b}?", a - b, f"sub:{a}-{b}")
for _ in range(8):
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    numeric("en", "arithmetic", f"What is {a} times {b}?", a * b, f"mul:{min(a, b)}x{max(a, b)}")
for _ in range(12):
    a, b = rng.randint(1, 12), rng.randint(1, 12)
    choice("en", "arithmetic", f"What is {a} + {b}?", str(a + b), distractors(a + b), fact=sum_fact(a, b))
for _ in range(10):
    a, b = rng.randint(2, 20), rng.randint(2, 20)
    numeric("zh", "arithmetic", f"{a}加{b}等于多少？", a + b, sum_fact(a, b))
for _ in range(6):
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    numeric("zh", "arithmetic", f"{a}乘以{b}等于多少？", a * b, f"mul:{min(a, b)}x{max(a, b)}")
for _ in range(8):
    a, b = rng.randint(1, 12), rng.randint(1, 12)
    choice("zh", "arithmetic", f"{a}加{b}等于多少？", str(a + b), distractors(a + b), fact=sum_fact(a, b))

# -- days and months ----------------------------------------------------------------------------
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_DAYS = ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
for i, d in enumerate(DAYS):
    nxt = DAYS[(i + 1) % 7]
    regex(
        "en",
        "calendar",
        f"Which day of the week comes after {d}?",
        nxt,
        rf"\b{nxt}\b",
        fact=f"day-after:{d}",
        v2=word_pattern_v2(nxt),
    )
for i in rng.sample(range(12), 8):
    nxt = MONTHS[(i + 1) % 12]
    wrong = [MONTHS[(i + k) % 12] for k in (2, 5, 0)]
    choice("en", "calendar", f"Which month comes after {MONTHS[i]}?", nxt, wrong, fact=f"month-after:{MONTHS[i]}")
for i, d in enumerate(ZH_DAYS):
    nxt = ZH_DAYS[(i + 1) % 7]
    alt = "周" + nxt[2:] if nxt != "星期日" else "周日|星期天|周天"
    regex(
        "zh",
        "calendar",
        f"{d}的后一天是星期几？",
        nxt,
        f"{nxt}|{alt}",
        fact=f"day-after:{DAYS[i]}",
        v2=f"(?:{nxt}|{alt})(?![{ZH_NUMERAL_CHARS}])",
    )

# -- units and counts ---------------------------------------------------------------------------
UNITS = [
    ("How many days are there in a week?", "一周有几天？", 7),
    ("How many hours are there in a day?", "一天有多少小时？", 24),
    ("How many minutes are there in an hour?", "一小时有多少分钟？", 60),
    ("How many seconds are there in a minute?", "一分钟有多少秒？", 60),
    ("How many months are there in a year?", "一年有几个月？", 12),
    ("How many centimetres are there in a metre?", "一米等于多少厘米？", 100),
    ("How many grams are there in a kilogram?", "一千克等于多少克？", 1000),
    ("How many metres are there in a kilometre?", "一千米等于多少米？", 1000),
    ("How many legs does a spider have?", "蜘蛛有几条腿？", 8),
    ("How many sides does a triangle have?", "三角形有几条边？", 3),
    ("How many sides does a square have?", "正方形有几条边？", 4),
    ("How many sides does a hexagon have?", "六边形有几条边？", 6),
    ("How many weeks are there in a year?", "一年大约有多少周？", 52),
    ("How many days are there in a leap year?", "闰年有多少天？", 366),
    ("How many legs does a dog have?", "狗有几条腿？", 4),
    ("How many continents are there on Earth?", "地球上有几个大洲？", 7),
]
for en, zh, n in UNITS:
    assert numeric("en", "units", en, n, f"units:{slug(en)}")
    assert numeric("zh", "units", zh, n, f"units:{slug(en)}", numerals_in=zh)
for en, _zh, n in UNITS[:12]:
    choice(
        "en",
        "units",
        en,
        str(n),
        distractors(n, 3) if n < 20 else [str(n // 2), str(n * 2), str(n + 10)],
        fact=f"units:{slug(en)}",
    )

# -- capitals -----------------------------------------------------------------------------------
CAPITALS = [
    ("France", "Paris", "法国", "巴黎"),
    ("Japan", "Tokyo", "日本", "东京"),
    ("Italy", "Rome", "意大利", "罗马"),
    ("Germany", "Berlin", "德国", "柏林"),
    ("Spain", "Madrid", "西班牙", "马德里"),
    ("the United Kingdom", "London", "英国", "伦敦"),
    ("Russia", "Moscow", "俄罗斯", "莫斯科"),
    ("Egypt", "Cairo", "埃及", "开罗"),
    ("Greece", "Athens", "希腊", "雅典"),
    ("China", "Beijing", "中国", "北京"),
    ("Canada", "Ottawa", "加拿大", "渥太华"),
    ("Australia", "Canberra", "澳大利亚", "堪培拉"),
    ("Portugal", "Lisbon", "葡萄牙", "里斯本"),
    ("Austria", "Vienna", "奥地利", "维也纳"),
    ("Ireland", "Dublin", "爱尔兰", "都柏林"),
    ("Norway", "Oslo", "挪威", "奥斯陆"),
    ("Sweden", "Stockholm", "瑞典", "斯德哥尔摩"),
    ("Thailand", "Bangkok", "泰国", "曼谷"),
    ("South Korea", "Seoul", "韩国", "首尔"),
    ("Argentina", "Buenos Aires", "阿根廷", "布宜诺斯艾利斯"),
    ("Kenya", "Nairobi", "肯尼亚", "内罗毕"),
    ("Poland", "Warsaw", "波兰", "华沙"),
    ("Turkey", "Ankara", "土耳其", "安卡拉"),
    ("Peru", "Lima", "秘鲁", "利马"),
]
for country, city, _c, _z in CAPITALS[:14]:
    regex(
        "en",
        "capitals",
        f"What is the capital of {country}?",
        city,
        rf"\b{city}\b",
        fact=f"capital:{slug(country)}",
        v2=word_pattern_v2(city),
    )
for country, city, _c, _z in CAPITALS:
    wrong = rng.sample([c for _, c, _, _ in CAPITALS if c != city], 3)
    choice("en", "capitals", f"What is the capital of {country}?", city, wrong, fact=f"capital:{slug(country)}")
for en_country, _city, country, city in CAPITALS[:10]:
    regex(
        "zh",
        "capitals",
        f"{country}的首都是哪里？",
        city,
        city,
        fact=f"capital:{slug(en_country)}",
        v2=zh_city_pattern_v2(city),
    )
for en_country, _city, country, city in CAPITALS[:16]:
    wrong = rng.sample([z for _, _, _, z in CAPITALS[:16] if z != city], 3)
    choice("zh", "capitals", f"{country}的首都是哪里？", city, wrong, fact=f"capital:{slug(en_country)}")

# -- colours, opposites and everyday facts -------------------------------------------------------
COLOURS = [
    ("a ripe banana", "yellow", "香蕉", "黄"),
    ("fresh grass", "green", "草", "绿"),
    ("the sky on a clear day", "blue", "晴天的天空", "蓝"),
    ("fresh snow", "white", "雪", "白"),
    ("coal", "black", "煤", "黑"),
    ("a ripe tomato", "red", "熟透的西红柿", "红"),
]
ALL_COLOURS = ["yellow", "green", "blue", "white", "black", "red", "purple", "brown"]
for thing, colour, zthing, zcolour in COLOURS:
    regex(
        "en",
        "colours",
        f"What colour is {thing}?",
        colour,
        rf"\b{colour}\b",
        fact=f"colour:{slug(thing)}",
        v2=word_pattern_v2(colour),
    )
    choice(
        "en",
        "colours",
        f"What colour is {thing}?",
        colour,
        rng.sample([c for c in ALL_COLOURS if c != colour], 3),
        fact=f"colour:{slug(thing)}",
    )
    regex(
        "zh",
        "colours",
        f"{zthing}是什么颜色？",
        zcolour + "色",
        zcolour,
        fact=f"colour:{slug(thing)}",
        v2=zh_colour_pattern_v2(zcolour),
    )
OPPOSITES = [
    ("hot", "cold", "热", "冷"),
    ("up", "down", "上", "下"),
    ("big", "small", "大", "小"),
    ("day", "night", "白天", "黑夜"),
    ("fast", "slow", "快", "慢"),
    ("open", "closed", "开", "关"),
    ("happy", "sad", "高兴", "难过"),
    ("light", "dark", "明亮", "黑暗"),
    ("early", "late", "早", "晚"),
    ("full", "empty", "满", "空"),
    ("old", "young", "老", "年轻"),
    ("left", "right", "左", "右"),
]
EN_OPP = [o for _, o, _, _ in OPPOSITES] + [w for w, _, _, _ in OPPOSITES]
ZH_OPP = [o for _, _, _, o in OPPOSITES] + [w for _, _, w, _ in OPPOSITES]
for word, opposite, _zword, _zopp in OPPOSITES:
    choice(
        "en",
        "opposites",
        f'What is the opposite of "{word}"?',
        opposite,
        rng.sample([w for w in EN_OPP if w not in (word, opposite)], 3),
        fact=f"opposite:{word}",
    )
for word, _opposite, zword, zopp in OPPOSITES[:8]:
    choice(
        "zh",
        "opposites",
        f"“{zword}”的反义词是什么？",
        zopp,
        rng.sample([w for w in ZH_OPP if w not in (zword, zopp)], 3),
        fact=f"opposite:{word}",
    )
FACTS = [
    ("Which planet is closest to the Sun?", "Mercury", ["Mars", "Jupiter", "Saturn"]),
    ("What is the largest ocean on Earth?", "Pacific", ["Atlantic", "Indian", "Arctic"]),
    ("What do bees make?", "honey", ["milk", "silk", "wool"]),
    ("At how many degrees Celsius does water freeze?", "0", ["10", "50", "100"]),
    ("At how many degrees Celsius does water boil at sea level?", "100", ["0", "50", "212"]),
    ("Which animal barks?", "dog", ["cat", "cow", "fish"]),
    ("Which gas do plants take in from the air?", "carbon dioxide", ["oxygen", "helium", "neon"]),
    ("What is frozen water called?", "ice", ["steam", "sand", "glass"]),
    ("Which is the largest planet in the solar system?", "Jupiter", ["Mercury", "Mars", "Venus"]),
    ("What is the closest star to Earth?", "the Sun", ["the Moon", "Mars", "Polaris"]),
    ("Which fruit is yellow and curved?", "banana", ["apple", "grape", "cherry"]),
    ("Which organ pumps blood through the body?", "the heart", ["the lung", "the liver", "the skin"]),
]
for question, right, wrong in FACTS:
    choice("en", "facts", question, right, wrong, fact=f"fact:{slug(question)}")
ZH_FACTS = [
    ("离太阳最近的行星是哪一颗？", "水星", ["火星", "木星", "土星"]),
    ("蜜蜂会酿造什么？", "蜂蜜", ["牛奶", "丝绸", "羊毛"]),
    ("水在多少摄氏度结冰？", "0", ["10", "50", "100"]),
    ("哪种动物会汪汪叫？", "狗", ["猫", "牛", "鱼"]),
    ("太阳系最大的行星是哪一颗？", "木星", ["水星", "火星", "金星"]),
    ("把血液泵向全身的器官是什么？", "心脏", ["肺", "肝", "皮肤"]),
]
ZH_FACT_TWINS = [0, 2, 3, 5, 8, 11]  # the FACTS each ZH_FACTS item asks in Chinese
for (question, right, wrong), twin in zip(ZH_FACTS, ZH_FACT_TWINS):
    choice("zh", "facts", question, right, wrong, fact=f"fact:{slug(FACTS[twin][0])}")


V1_FIELDS = ("id", "lang", "topic", "kind", "prompt", "answer", "pattern", "choices")


def write(name: str, rows: list[dict[str, Any]]) -> None:
    out = Path(__file__).with_name(name)
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    kinds = {k: sum(1 for i in rows if i["kind"] == k) for k in ("regex", "choice")}
    langs = {k: sum(1 for i in rows if i["lang"] == k) for k in ("en", "zh")}
    facts = len({i.get("fact", i["id"]) for i in rows})
    print(f"{out}: {len(rows)} items, {facts} facts, {kinds}, {langs}")


def main() -> None:
    # quick-v1: as first written (no facts, the unanchored patterns); its bytes never change
    write("quick-v1.jsonl", [{k: item[k] for k in item if k in V1_FIELDS} for item in items])
    v2 = []
    for item in items:
        row = {k: v for k, v in item.items() if k != "pattern_v2"}
        if "pattern_v2" in item:
            row["pattern"] = item["pattern_v2"]
        v2.append(row)
    write("quick-v2.jsonl", v2)


if __name__ == "__main__":
    main()
