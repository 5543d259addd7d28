#include "control.h"

#include "channel_map.h"

namespace dc {

namespace {
constexpr size_t kCachedReplies = 512;

lg::BValue error(const std::string& why) {
  lg::BValue r = lg::BValue::makeDict();
  r["result"] = "error";
  r["error-reason"] = why;
  return r;
}

bool intMember(const lg::BValue& d, const std::string& k, int64_t min, int64_t max, int64_t* out, std::string* err) {
  const lg::BValue* v = d.find(k);
  if (!v) return false;
  int64_t n;
  if (v->type == lg::BValue::Type::Int) {
    n = v->i;
  } else if (v->type == lg::BValue::Type::Str && !v->s.empty() && v->s.size() < 11 &&
             v->s.find_first_not_of("0123456789") == std::string::npos) {
    n = std::stoll(v->s);
  } else {
    *err = "\"" + k + "\" is not a number";
    return false;
  }
  if (n < min || n > max) {
    *err = "\"" + k + "\" is out of range " + std::to_string(min) + ".." + std::to_string(max);
    return false;
  }
  *out = n;
  return true;
}
}  // namespace

bool channelsFromBencode(const lg::BValue& list, std::vector<DcMap>* out, std::string* err) {
  if (list.type != lg::BValue::Type::List) {
    *err = "\"channels\" is not a list";
    return false;
  }
  for (const auto& c : list.list) {
    if (c.type != lg::BValue::Type::Dict) {
      *err = "an entry of \"channels\" is not a dictionary";
      return false;
    }
    DcMap m;
    int64_t n;
    err->clear();
    if (!intMember(c, "id", 0, 65534, &n, err)) {
      if (err->empty()) *err = "a channel without \"id\"";
      return false;
    }
    m.id = static_cast<uint16_t>(n);
    m.params.label = c.str("label");
    m.params.protocol = c.str("subprotocol");
    std::string ordered = c.str("ordered");
    if (!ordered.empty() && ordered != "yes" && ordered != "no") {
      *err = "channel " + std::to_string(m.id) + ": \"ordered\" is neither yes nor no";
      return false;
    }
    m.params.ordered = ordered != "no";
    bool retr = intMember(c, "max-retr", 0, 0xffffffffLL, &n, err);
    if (retr) {
      m.params.reliability = Reliability::Rexmit;
      m.params.reliabilityParam = static_cast<uint32_t>(n);
    } else if (!err->empty()) {
      return false;
    }
    if (intMember(c, "max-time", 0, 0xffffffffLL, &n, err)) {
      if (retr) {
        *err = "channel " + std::to_string(m.id) + ": both max-retr and max-time";
        return false;
      }
      m.params.reliability = Reliability::Timed;
      m.params.reliabilityParam = static_cast<uint32_t>(n);
    } else if (!err->empty()) {
      return false;
    }
    if (intMember(c, "priority", 0, 65535, &n, err)) m.params.priority = static_cast<uint16_t>(n);
    else if (!err->empty()) return false;
    std::string app = c.str("3gpp-req-app");
    if (!app.empty()) m.dcsa.push_back("3gpp-req-app:" + app);
    out->push_back(m);
  }
  return true;
}

std::string Control::handle(const std::string& datagram) {
  size_t sp = datagram.find(' ');
  if (sp == std::string::npos || sp == 0) return "";
  std::string cookie = datagram.substr(0, sp);
  auto cached = replies_.find(cookie);
  if (cached != replies_.end()) return cached->second;
  lg::BValue cmd, reply;
  if (!lg::bdecode(datagram.substr(sp + 1), cmd) || cmd.type != lg::BValue::Type::Dict) {
    reply = error("the command is not a bencoded dictionary");
  } else {
    reply = dispatch(cmd);
  }
  std::string out = cookie + " " + lg::bencode(reply);
  replies_[cookie] = out;
  order_.push_back(cookie);
  if (order_.size() > kCachedReplies) {
    replies_.erase(order_.front());
    order_.pop_front();
  }
  return out;
}

lg::BValue Control::dispatch(const lg::BValue& cmd) {
  std::string command = cmd.str("command");
  lg::BValue r = lg::BValue::makeDict();
  if (command == "ping") {
    r["result"] = "pong";
    return r;
  }
  if (command == "list") {
    r["result"] = "ok";
    r["calls"] = lg::BValue::makeList();
    for (const auto& c : h_.calls()) r["calls"].list.push_back(c);
    return r;
  }
  if (command == "text-offer" || command == "text-answer") return textCommand(cmd);
  if (command != "offer" && command != "answer" && command != "delete" && command != "query")
    return error(command.empty() ? "no \"command\"" : "unknown command \"" + command + "\"");
  std::string callId = cmd.str("call-id");
  if (callId.empty()) return error("no \"call-id\"");
  std::string err;
  if (command == "offer" && cmd.str("from") == "ims") {
    std::string sdp = cmd.str("sdp"), browserOffer, imsAnswer;
    if (sdp.empty()) return error("no \"sdp\" (the IMS side's offer)");
    if (cmd.find("channels")) return error("\"channels\" goes with an offer from the browser; an IMS offer has its own a=dcmap");
    if (!h_.offerFromIms(callId, sdp, &browserOffer, &imsAnswer, &err)) return error(err);
    r["result"] = "ok";
    r["sdp"] = browserOffer;
    r["ims-sdp"] = imsAnswer;
  } else if (command == "offer") {
    std::string from = cmd.str("from");
    if (!from.empty() && from != "browser") return error("\"from\" is neither browser nor ims");
    std::string sdp = cmd.str("sdp"), answer, imsOffer;
    if (sdp.empty()) return error("no \"sdp\" (the browser's offer)");
    std::vector<DcMap> channels;
    if (const lg::BValue* c = cmd.find("channels"); c && !channelsFromBencode(*c, &channels, &err)) return error(err);
    if (!h_.offer(callId, sdp, channels, &answer, &imsOffer, &err)) return error(err);
    r["result"] = "ok";
    r["sdp"] = answer;
    r["ims-sdp"] = imsOffer;
  } else if (command == "answer") {
    std::string sdp = cmd.str("sdp");
    if (sdp.empty()) return error("no \"sdp\" (the answer to the endpoint's offer)");
    std::vector<uint16_t> accepted;
    if (!h_.answer(callId, sdp, &accepted, &err)) return error(err);
    r["result"] = "ok";
    r["channels"] = lg::BValue::makeList();
    for (uint16_t id : accepted) r["channels"].list.push_back(static_cast<int64_t>(id));
  } else if (command == "delete") {
    lg::BValue stats;
    if (!h_.remove(callId, &stats, &err)) return error(err);
    r = stats;
    r["result"] = "ok";
  } else {
    lg::BValue stats;
    if (!h_.query(callId, &stats, &err)) return error(err);
    r = stats;
    r["result"] = "ok";
  }
  return r;
}

lg::BValue Control::textCommand(const lg::BValue& cmd) {
  std::string callId = cmd.str("call-id");
  if (callId.empty()) return error("no \"call-id\"");
  std::string err;
  lg::BValue r = lg::BValue::makeDict();
  if (cmd.str("command") == "text-answer") {
    std::string sdp = cmd.str("sdp");
    if (sdp.empty()) return error("no \"sdp\" (the IMS side's answer with its m=text section)");
    if (!h_.textAnswer(callId, sdp, &r, &err)) return error(err);
    r["result"] = "ok";
    return r;
  }
  TextBridge::Options o;
  int64_t n;
  auto opt = [&](const char* key, int64_t min, int64_t max, int* out) {
    if (intMember(cmd, key, min, max, &n, &err)) *out = static_cast<int>(n);
    return err.empty();
  };
  if (!opt("channel", 0, ChannelMap::kMaxStreams - 1, &o.channel) || !opt("t140-pt", 96, 127, &o.t140Pt) ||
      !opt("red-pt", 96, 127, &o.redPt) || !opt("redundancy", 0, 5, &o.generations) || !opt("cps", 1, 1000, &o.cps))
    return error(err);
  if (o.generations == 0) o.redPt = -1;
  if (o.redPt == o.t140Pt) return error("\"red-pt\" and \"t140-pt\" are the same payload type");
  if (cmd.str("from") == "ims") {
    std::string imsSdp = cmd.str("sdp"), browserOffer, imsAnswer;
    if (imsSdp.empty()) return error("no \"sdp\" (the IMS side's offer with its m=text section)");
    if (o.channel < 0) o.channel = 1001;  // RFC 8865 leaves the id to the offerer; the page's own T.140 channel's id
    if (!h_.textOfferFromIms(callId, o, imsSdp, &browserOffer, &imsAnswer, &err)) return error(err);
    r["result"] = "ok";
    r["sdp"] = browserOffer;
    r["ims-sdp"] = imsAnswer;
    return r;
  }
  if (!cmd.str("from").empty() && cmd.str("from") != "browser") return error("\"from\" is neither browser nor ims");
  std::string sdp;
  if (!h_.textOffer(callId, o, &sdp, &err)) return error(err);
  r["result"] = "ok";
  r["sdp"] = sdp;
  return r;
}

}  // namespace dc
