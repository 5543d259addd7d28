#include "sip_dialog.h"

#include <algorithm>

namespace lg::sip {

namespace {

// The From/To value without its tag parameter (the URI part, in <>).
std::string bare(const std::string& nameAddr) { return "<" + uri(nameAddr) + ">"; }

bool looseFirst(const std::vector<std::string>& routes, std::string* err) {
  if (routes.empty() || uri(routes.front()).find(";lr") != std::string::npos) return true;
  if (err) *err = "the first route " + routes.front() + " is a strict router (no ;lr): not supported";
  return false;
}

}  // namespace

void stampRequest(Message& m, const UaIdentity& ua, const std::string& branchValue) {
  m.headers.insert(m.headers.begin(),
                   {"Via", "SIP/2.0/" + ua.transport + " " + ua.viaHost + ";branch=" + (branchValue.empty() ? branch() : branchValue)});
  if (!m.has("Max-Forwards")) m.add("Max-Forwards", "70");
  if (!ua.bearer.empty()) m.add("Authorization", "Bearer " + ua.bearer);
  m.add("User-Agent", "loadgen (lab, SIP over WebSocket)");
}

bool Dialog::fromUac(const Message& invite, const Message& resp, Dialog& out, std::string* err) {
  out = Dialog{};
  out.callId = invite.callId();
  out.localTag = tag(invite.header("From"));
  out.remoteTag = tag(resp.header("To"));
  out.localUri = bare(invite.header("From"));
  out.remoteUri = bare(invite.header("To"));
  out.remoteTarget = uri(resp.header("Contact"));
  out.localCseq = invite.cseq();
  if (out.remoteTag.empty()) {
    if (err) *err = "the response to the INVITE has no To tag";
    return false;
  }
  if (out.remoteTarget.empty()) {
    if (err) *err = "the " + std::to_string(resp.status) + " to the INVITE has no Contact";
    return false;
  }
  out.routeSet = resp.all("Record-Route");
  std::reverse(out.routeSet.begin(), out.routeSet.end());
  return looseFirst(out.routeSet, err);
}

bool Dialog::fromUas(const Message& invite, const std::string& localTag, Dialog& out, std::string* err) {
  out = Dialog{};
  out.callId = invite.callId();
  out.localTag = localTag;
  out.remoteTag = tag(invite.header("From"));
  out.localUri = bare(invite.header("To"));
  out.remoteUri = bare(invite.header("From"));
  out.remoteTarget = uri(invite.header("Contact"));
  out.localCseq = 0;
  if (out.remoteTarget.empty()) {
    if (err) *err = "the INVITE has no Contact";
    return false;
  }
  out.routeSet = invite.all("Record-Route");
  return looseFirst(out.routeSet, err);
}

Message Dialog::request(const std::string& method, const UaIdentity& ua, unsigned long cseq) {
  Message m;
  m.request = true;
  m.method = method;
  m.uri = remoteTarget;
  if (cseq == 0) cseq = ++localCseq;
  for (const auto& r : routeSet) m.add("Route", r);
  m.add("From", localUri + ";tag=" + localTag);
  m.add("To", remoteUri + (remoteTag.empty() ? "" : ";tag=" + remoteTag));
  m.add("Call-ID", callId);
  m.add("CSeq", std::to_string(cseq) + " " + method);
  stampRequest(m, ua);
  return m;
}

Message response(const Message& req, int status, const std::string& reason, const std::string& toTag, const UaIdentity& ua) {
  Message m;
  m.status = status;
  m.reason = reason;
  for (const auto& v : req.all("Via")) m.add("Via", v);
  m.add("From", req.header("From"));
  std::string to = req.header("To");
  if (!toTag.empty() && tag(to).empty() && status > 100) to += ";tag=" + toTag;
  m.add("To", to);
  m.add("Call-ID", req.callId());
  m.add("CSeq", req.header("CSeq"));
  if (req.method == "INVITE" && status > 100 && status < 300) {
    for (const auto& rr : req.all("Record-Route")) m.add("Record-Route", rr);
    m.add("Contact", ua.contact);
  }
  m.add("Server", "loadgen (lab, SIP over WebSocket)");
  return m;
}

}  // namespace lg::sip
