"""Writes quick-v1.jsonl, the console's quality-gate evaluation set (see README.md).

Not used at run time: the console reads the JSONL it wrote. Run it again only to make a new
version (a new file name): results recorded against quick-v1 stay comparable only if quick-v1
never changes. Deterministic (fixed seed): ``python resources/eval/generate.py`` rewrites the
same bytes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

SEED = 23
rng = random.Random(SEED)
items: list[dict[str, Any]] = []

EN_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve"]
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


def add(kind: str, lang: str, topic: str, prompt: str, **fields: Any) -> None:
    n = sum(1 for i in items if i["lang"] == lang and i["topic"] == topic and i["kind"] == kind) + 1
    items.append({"id": f"{lang}-{topic}-{kind}-{n:02d}", "lang": lang, "topic": topic, "kind": kind,
                  "prompt": prompt, **fields})


def regex(lang: str, topic: str, question: str, answer: str, pattern: str) -> bool:
    """Adds the item unless its pattern already matches the question (an echo would pass)."""
    import re

    if re.search(pattern, question):
        return False
    suffix = " Answer in a few words." if lang == "en" else "请简短回答。"
    add("regex", lang, topic, question + suffix, answer=answer, pattern=pattern)
    return True


def choice(lang: str, topic: str, question: str, right: str, wrong: list[str]) -> None:
    options = [right] + wrong[:3]
    rng.shuffle(options)
    prompt = f"Question: {question}\nAnswer:" if lang == "en" else f"问题：{question}\n答案："
    add("choice", lang, topic, prompt, choices=options, answer=options.index(right))


def distractors(n: int, spread: int = 4) -> list[str]:
    pool = [m for m in range(max(0, n - spread), n + spread + 1) if m != n]
    return [str(m) for m in rng.sample(pool, 3)]


# -- arithmetic ---------------------------------------------------------------------------------
for _ in range(16):
    a, b = rng.randint(2, 20), rng.randint(2, 20)
    regex("en", "arithmetic", f"What is {a} + {b}?", str(a + b), number_pattern(a + b, "en"))
added = 0
while added < 8:
    a, b = rng.randint(10, 30), rng.randint(1, 9)
    added += regex("en", "arithmetic", f"What is {a} minus {b}?", str(a - b), number_pattern(a - b, "en"))
for _ in range(8):
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    regex("en", "arithmetic", f"What is {a} times {b}?", str(a * b), number_pattern(a * b, "en"))
for _ in range(12):
    a, b = rng.randint(1, 12), rng.randint(1, 12)
    choice("en", "arithmetic", f"What is {a} + {b}?", str(a + b), distractors(a + b))
for _ in range(10):
    a, b = rng.randint(2, 20), rng.randint(2, 20)
    regex("zh", "arithmetic", f"{a}加{b}等于多少？", str(a + b), number_pattern(a + b, "zh"))
for _ in range(6):
    a, b = rng.randint(2, 9), rng.randint(2, 9)
    regex("zh", "arithmetic", f"{a}乘以{b}等于多少？", str(a * b), number_pattern(a * b, "zh"))
for _ in range(8):
    a, b = rng.randint(1, 12), rng.randint(1, 12)
    choice("zh", "arithmetic", f"{a}加{b}等于多少？", str(a + b), distractors(a + b))

# -- days and months ----------------------------------------------------------------------------
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
ZH_DAYS = ["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
for i, d in enumerate(DAYS):
    nxt = DAYS[(i + 1) % 7]
    regex("en", "calendar", f"Which day of the week comes after {d}?", nxt, rf"\b{nxt}\b")
for i in rng.sample(range(12), 8):
    nxt = MONTHS[(i + 1) % 12]
    wrong = [MONTHS[(i + k) % 12] for k in (2, 5, 0)]
    choice("en", "calendar", f"Which month comes after {MONTHS[i]}?", nxt, wrong)
for i, d in enumerate(ZH_DAYS):
    nxt = ZH_DAYS[(i + 1) % 7]
    alt = "周" + nxt[2:] if nxt != "星期日" else "周日|星期天|周天"
    regex("zh", "calendar", f"{d}的后一天是星期几？", nxt, f"{nxt}|{alt}")

# -- units and counts ---------------------------------------------------------------------------
UNITS = [("How many days are there in a week?", "一周有几天？", 7),
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
         ("How many continents are there on Earth?", "地球上有几个大洲？", 7)]
for en, zh, n in UNITS:
    assert regex("en", "units", en, str(n), number_pattern(n, "en"))
    assert regex("zh", "units", zh, str(n), number_pattern(n, "zh", zh))
for en, _zh, n in UNITS[:12]:
    choice("en", "units", en, str(n), distractors(n, 3) if n < 20 else [str(n // 2), str(n * 2), str(n + 10)])

# -- capitals -----------------------------------------------------------------------------------
CAPITALS = [("France", "Paris", "法国", "巴黎"), ("Japan", "Tokyo", "日本", "东京"),
            ("Italy", "Rome", "意大利", "罗马"), ("Germany", "Berlin", "德国", "柏林"),
            ("Spain", "Madrid", "西班牙", "马德里"), ("the United Kingdom", "London", "英国", "伦敦"),
            ("Russia", "Moscow", "俄罗斯", "莫斯科"), ("Egypt", "Cairo", "埃及", "开罗"),
            ("Greece", "Athens", "希腊", "雅典"), ("China", "Beijing", "中国", "北京"),
            ("Canada", "Ottawa", "加拿大", "渥太华"), ("Australia", "Canberra", "澳大利亚", "堪培拉"),
            ("Portugal", "Lisbon", "葡萄牙", "里斯本"), ("Austria", "Vienna", "奥地利", "维也纳"),
            ("Ireland", "Dublin", "爱尔兰", "都柏林"), ("Norway", "Oslo", "挪威", "奥斯陆"),
            ("Sweden", "Stockholm", "瑞典", "斯德哥尔摩"), ("Thailand", "Bangkok", "泰国", "曼谷"),
            ("South Korea", "Seoul", "韩国", "首尔"), ("Argentina", "Buenos Aires", "阿根廷", "布宜诺斯艾利斯"),
            ("Kenya", "Nairobi", "肯尼亚", "内罗毕"), ("Poland", "Warsaw", "波兰", "华沙"),
            ("Turkey", "Ankara", "土耳其", "安卡拉"), ("Peru", "Lima", "秘鲁", "利马")]
for country, city, _c, _z in CAPITALS[:14]:
    regex("en", "capitals", f"What is the capital of {country}?", city, rf"\b{city}\b")
for country, city, _c, _z in CAPITALS:
    wrong = rng.sample([c for _, c, _, _ in CAPITALS if c != city], 3)
    choice("en", "capitals", f"What is the capital of {country}?", city, wrong)
for _c, _city, country, city in CAPITALS[:10]:
    regex("zh", "capitals", f"{country}的首都是哪里？", city, city)
for _c, _city, country, city in CAPITALS[:16]:
    wrong = rng.sample([z for _, _, _, z in CAPITALS[:16] if z != city], 3)
    choice("zh", "capitals", f"{country}的首都是哪里？", city, wrong)

# -- colours, opposites and everyday facts -------------------------------------------------------
COLOURS = [("a ripe banana", "yellow", "香蕉", "黄"), ("fresh grass", "green", "草", "绿"),
           ("the sky on a clear day", "blue", "晴天的天空", "蓝"), ("fresh snow", "white", "雪", "白"),
           ("coal", "black", "煤", "黑"), ("a ripe tomato", "red", "熟透的西红柿", "红")]
ALL_COLOURS = ["yellow", "green", "blue", "white", "black", "red", "purple", "brown"]
for thing, colour, zthing, zcolour in COLOURS:
    regex("en", "colours", f"What colour is {thing}?", colour, rf"\b{colour}\b")
    choice("en", "colours", f"What colour is {thing}?", colour,
           rng.sample([c for c in ALL_COLOURS if c != colour], 3))
    regex("zh", "colours", f"{zthing}是什么颜色？", zcolour + "色", zcolour)
OPPOSITES = [("hot", "cold", "热", "冷"), ("up", "down", "上", "下"), ("big", "small", "大", "小"),
             ("day", "night", "白天", "黑夜"), ("fast", "slow", "快", "慢"), ("open", "closed", "开", "关"),
             ("happy", "sad", "高兴", "难过"), ("light", "dark", "明亮", "黑暗"), ("early", "late", "早", "晚"),
             ("full", "empty", "满", "空"), ("old", "young", "老", "年轻"), ("left", "right", "左", "右")]
EN_OPP = [o for _, o, _, _ in OPPOSITES] + [w for w, _, _, _ in OPPOSITES]
ZH_OPP = [o for _, _, _, o in OPPOSITES] + [w for _, _, w, _ in OPPOSITES]
for word, opposite, _zword, _zopp in OPPOSITES:
    choice("en", "opposites", f"What is the opposite of \"{word}\"?", opposite,
           rng.sample([w for w in EN_OPP if w not in (word, opposite)], 3))
for _word, _opposite, zword, zopp in OPPOSITES[:8]:
    choice("zh", "opposites", f"“{zword}”的反义词是什么？", zopp,
           rng.sample([w for w in ZH_OPP if w not in (zword, zopp)], 3))
FACTS = [("Which planet is closest to the Sun?", "Mercury", ["Mars", "Jupiter", "Saturn"]),
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
         ("Which organ pumps blood through the body?", "the heart", ["the lung", "the liver", "the skin"])]
for question, right, wrong in FACTS:
    choice("en", "facts", question, right, wrong)
ZH_FACTS = [("离太阳最近的行星是哪一颗？", "水星", ["火星", "木星", "土星"]),
            ("蜜蜂会酿造什么？", "蜂蜜", ["牛奶", "丝绸", "羊毛"]),
            ("水在多少摄氏度结冰？", "0", ["10", "50", "100"]),
            ("哪种动物会汪汪叫？", "狗", ["猫", "牛", "鱼"]),
            ("太阳系最大的行星是哪一颗？", "木星", ["水星", "火星", "金星"]),
            ("把血液泵向全身的器官是什么？", "心脏", ["肺", "肝", "皮肤"])]
for question, right, wrong in ZH_FACTS:
    choice("zh", "facts", question, right, wrong)


def main() -> None:
    out = Path(__file__).with_name("quick-v1.jsonl")
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        for item in items:
            fh.write(json.dumps(item, ensure_ascii=False) + "\n")
    kinds = {k: sum(1 for i in items if i["kind"] == k) for k in ("regex", "choice")}
    langs = {k: sum(1 for i in items if i["lang"] == k) for k in ("en", "zh")}
    print(f"{out}: {len(items)} items, {kinds}, {langs}")


if __name__ == "__main__":
    main()
