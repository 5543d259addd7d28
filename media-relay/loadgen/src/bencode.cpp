#include "bencode.h"

namespace lg {

BValue BValue::makeList(std::vector<BValue> items) {
  BValue v;
  v.type = Type::List;
  v.list = std::move(items);
  return v;
}

BValue BValue::makeDict() {
  BValue v;
  v.type = Type::Dict;
  return v;
}

BValue& BValue::operator[](const std::string& key) {
  type = Type::Dict;
  return dict[key];
}

const BValue* BValue::find(const std::string& key) const {
  if (type != Type::Dict) return nullptr;
  auto it = dict.find(key);
  return it == dict.end() ? nullptr : &it->second;
}

std::string BValue::str(const std::string& key) const {
  const BValue* v = find(key);
  return v && v->type == Type::Str ? v->s : std::string();
}

static void encodeTo(const BValue& v, std::string& out) {
  switch (v.type) {
    case BValue::Type::Int:
      out += 'i';
      out += std::to_string(v.i);
      out += 'e';
      break;
    case BValue::Type::Str:
      out += std::to_string(v.s.size());
      out += ':';
      out += v.s;
      break;
    case BValue::Type::List:
      out += 'l';
      for (const auto& item : v.list) encodeTo(item, out);
      out += 'e';
      break;
    case BValue::Type::Dict:
      out += 'd';
      for (const auto& [k, item] : v.dict) {
        out += std::to_string(k.size());
        out += ':';
        out += k;
        encodeTo(item, out);
      }
      out += 'e';
      break;
  }
}

std::string bencode(const BValue& v) {
  std::string out;
  encodeTo(v, out);
  return out;
}

static bool parseNumber(const std::string& in, size_t& pos, char end, int64_t& out) {
  size_t start = pos;
  bool neg = false;
  if (pos < in.size() && in[pos] == '-') { neg = true; ++pos; }
  int64_t n = 0;
  size_t digits = 0;
  while (pos < in.size() && in[pos] >= '0' && in[pos] <= '9') {
    if (digits > 18) return false;
    n = n * 10 + (in[pos] - '0');
    ++pos;
    ++digits;
  }
  if (digits == 0 || pos >= in.size() || in[pos] != end) { pos = start; return false; }
  ++pos;
  out = neg ? -n : n;
  return true;
}

static bool decodeAt(const std::string& in, size_t& pos, BValue& out, int depth) {
  if (depth > 32 || pos >= in.size()) return false;
  char c = in[pos];
  if (c == 'i') {
    ++pos;
    out = BValue(int64_t{0});
    return parseNumber(in, pos, 'e', out.i);
  }
  if (c == 'l' || c == 'd') {
    ++pos;
    out = c == 'l' ? BValue::makeList() : BValue::makeDict();
    while (pos < in.size() && in[pos] != 'e') {
      if (c == 'l') {
        BValue item;
        if (!decodeAt(in, pos, item, depth + 1)) return false;
        out.list.push_back(std::move(item));
      } else {
        BValue key, item;
        if (!decodeAt(in, pos, key, depth + 1) || key.type != BValue::Type::Str) return false;
        if (!decodeAt(in, pos, item, depth + 1)) return false;
        out.dict[key.s] = std::move(item);
      }
    }
    if (pos >= in.size()) return false;
    ++pos;  // 'e'
    return true;
  }
  if (c >= '0' && c <= '9') {
    int64_t len = 0;
    if (!parseNumber(in, pos, ':', len) || len < 0 || static_cast<size_t>(len) > in.size() - pos)
      return false;
    out = BValue(in.substr(pos, static_cast<size_t>(len)));
    pos += static_cast<size_t>(len);
    return true;
  }
  return false;
}

bool bdecode(const std::string& in, size_t& pos, BValue& out) { return decodeAt(in, pos, out, 0); }

bool bdecode(const std::string& in, BValue& out) {
  size_t pos = 0;
  return decodeAt(in, pos, out, 0) && pos == in.size();
}

}  // namespace lg
