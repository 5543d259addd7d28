// sip_dialog: the route set, remote target and tags of a dialog (RFC 3261 §12) and the requests/responses built from them.
#include <gtest/gtest.h>

#include "sip_dialog.h"

using namespace lg::sip;

namespace {
UaIdentity ua() {
  UaIdentity u;
  u.impu = "sip:alice@ims.lab";
  u.viaHost = "h1.invalid";
  u.contact = "<sip:alice@h1.invalid;transport=ws>";
  u.bearer = "eyJ.token.sig";
  return u;
}

Message parsed(const std::string& text) {
  Message m;
  std::string err;
  EXPECT_TRUE(parse(text, m, &err)) << err;
  return m;
}

Message ourInvite() {
  Message inv;
  inv.request = true;
  inv.method = "INVITE";
  inv.uri = "sip:ue1@ims.lab";
  inv.add("Route", "<sip:orig@127.0.0.1:5062;lr>");
  inv.add("From", "<sip:alice@ims.lab>;tag=ours");
  inv.add("To", "<sip:ue1@ims.lab>");
  inv.add("Call-ID", "mo-1@h1.invalid");
  inv.add("CSeq", "1 INVITE");
  inv.add("Contact", "<sip:alice@h1.invalid;transport=ws>");
  stampRequest(inv, ua());
  return inv;
}
}  // namespace

TEST(SipDialog, StampPutsViaFirstAndTheBearerTokenOnEveryRequest) {
  Message inv = ourInvite();
  ASSERT_FALSE(inv.headers.empty());
  EXPECT_EQ(inv.headers.front().first, "Via");
  EXPECT_EQ(inv.headers.front().second.rfind("SIP/2.0/WS h1.invalid;branch=z9hG4bK", 0), 0u) << inv.headers.front().second;
  EXPECT_EQ(inv.header("Authorization"), "Bearer eyJ.token.sig") << "RFC 8898 / TS 24.371 §7.2: the token in every request";
  EXPECT_EQ(inv.header("Max-Forwards"), "70");
  UaIdentity noToken = ua();
  noToken.bearer.clear();
  Message m;
  m.request = true;
  m.method = "OPTIONS";
  stampRequest(m, noToken, "z9hG4bKfixed");
  EXPECT_FALSE(m.has("Authorization"));
  EXPECT_EQ(param(m.header("Via"), "branch"), "z9hG4bKfixed");
}

TEST(SipDialog, UacRouteSetIsTheReversedRecordRouteAndAckGoesToTheContact) {
  Message inv = ourInvite();
  Message ok = parsed(
      "SIP/2.0 200 OK\r\nVia: " + inv.header("Via") + "\r\n"
      "Record-Route: <sip:127.0.0.1:5062;lr>, <sip:127.0.0.1;lr;r2=on>\r\n"
      "Record-Route: <sip:127.0.0.1:5066;transport=ws;lr;r2=on>\r\n"
      "From: <sip:alice@ims.lab>;tag=ours\r\nTo: <sip:ue1@ims.lab>;tag=theirs\r\nCall-ID: mo-1@h1.invalid\r\n"
      "CSeq: 1 INVITE\r\nContact: <sip:ue1@127.0.0.1:5070>\r\nContent-Length: 0\r\n\r\n");
  Dialog d;
  std::string err;
  ASSERT_TRUE(Dialog::fromUac(inv, ok, d, &err)) << err;
  EXPECT_EQ(d.remoteTag, "theirs");
  EXPECT_EQ(d.localTag, "ours");
  EXPECT_EQ(d.remoteTarget, "sip:ue1@127.0.0.1:5070");
  ASSERT_EQ(d.routeSet.size(), 3u);
  EXPECT_EQ(d.routeSet.front(), "<sip:127.0.0.1:5066;transport=ws;lr;r2=on>") << "UAC: the last Record-Route is the first hop";
  EXPECT_EQ(d.routeSet.back(), "<sip:127.0.0.1:5062;lr>");

  Message ack = d.request("ACK", ua(), inv.cseq());
  EXPECT_EQ(ack.uri, "sip:ue1@127.0.0.1:5070") << "loose routing: the R-URI is the remote target";
  EXPECT_EQ(ack.header("CSeq"), "1 ACK") << "the 2xx ACK has the INVITE's CSeq number";
  EXPECT_EQ(ack.all("Route"), d.routeSet);
  EXPECT_EQ(tag(ack.header("To")), "theirs");
  EXPECT_EQ(ack.header("Authorization"), "Bearer eyJ.token.sig");
  EXPECT_NE(param(ack.header("Via"), "branch"), param(inv.header("Via"), "branch")) << "a 2xx ACK is a new transaction";
  Message bye = d.request("BYE", ua());
  EXPECT_EQ(bye.header("CSeq"), "2 BYE") << "the next local CSeq after the INVITE's";
}

TEST(SipDialog, UacRefusesA2xxWithoutContactOrToTagAndAStrictRouter) {
  Message inv = ourInvite();
  std::string head = "SIP/2.0 200 OK\r\nVia: SIP/2.0/WS h1.invalid;branch=z9hG4bK1\r\nFrom: <sip:alice@ims.lab>;tag=ours\r\n"
                     "Call-ID: mo-1@h1.invalid\r\nCSeq: 1 INVITE\r\n";
  Dialog d;
  std::string err;
  EXPECT_FALSE(Dialog::fromUac(inv, parsed(head + "To: <sip:ue1@ims.lab>\r\nContact: <sip:ue1@h>\r\n\r\n"), d, &err));
  EXPECT_NE(err.find("no To tag"), std::string::npos) << err;
  EXPECT_FALSE(Dialog::fromUac(inv, parsed(head + "To: <sip:ue1@ims.lab>;tag=t\r\n\r\n"), d, &err));
  EXPECT_NE(err.find("no Contact"), std::string::npos) << err;
  EXPECT_FALSE(Dialog::fromUac(inv, parsed(head + "To: <sip:ue1@ims.lab>;tag=t\r\nContact: <sip:ue1@h>\r\n"
                                                  "Record-Route: <sip:10.0.0.1>\r\n\r\n"), d, &err));
  EXPECT_NE(err.find("strict router"), std::string::npos) << err;
}

TEST(SipDialog, UasKeepsTheRecordRouteOrderAndAnswersWithItsTag) {
  Message inv = parsed(
      "INVITE sip:alice@h1.invalid;transport=ws;alias=127.0.0.1~4~5 SIP/2.0\r\n"
      "Via: SIP/2.0/WS 127.0.0.1:5066;branch=z9hG4bKp\r\nVia: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKs\r\n"
      "Record-Route: <sip:127.0.0.1:5066;transport=ws;lr;r2=on>, <sip:127.0.0.1;lr;r2=on>\r\n"
      "From: <sip:ue2@ims.lab>;tag=caller\r\nTo: <sip:alice@ims.lab>\r\nCall-ID: mt-9\r\nCSeq: 3 INVITE\r\n"
      "Contact: <sip:ue2@127.0.0.1:5080>\r\nContent-Length: 0\r\n\r\n");
  Dialog d;
  std::string err;
  ASSERT_TRUE(Dialog::fromUas(inv, "mine", d, &err)) << err;
  ASSERT_EQ(d.routeSet.size(), 2u);
  EXPECT_EQ(d.routeSet.front(), "<sip:127.0.0.1:5066;transport=ws;lr;r2=on>") << "UAS: Record-Route in the order received";
  Message bye = d.request("BYE", ua());
  EXPECT_EQ(bye.uri, "sip:ue2@127.0.0.1:5080");
  EXPECT_EQ(bye.header("From"), "<sip:alice@ims.lab>;tag=mine");
  EXPECT_EQ(bye.header("To"), "<sip:ue2@ims.lab>;tag=caller");
  EXPECT_EQ(bye.header("CSeq"), "1 BYE");

  Message ok = response(inv, 200, "OK", "mine", ua());
  EXPECT_EQ(ok.all("Via").size(), 2u) << "every Via of the request goes back";
  EXPECT_EQ(ok.header("To"), "<sip:alice@ims.lab>;tag=mine");
  EXPECT_EQ(ok.all("Record-Route").size(), 2u) << "a dialog-creating 2xx copies Record-Route";
  EXPECT_EQ(ok.header("Contact"), "<sip:alice@h1.invalid;transport=ws>");
  EXPECT_EQ(ok.header("CSeq"), "3 INVITE");
  Message trying = response(inv, 100, "Trying", "mine", ua());
  EXPECT_EQ(tag(trying.header("To")), "") << "a 100 carries no To tag";
  EXPECT_FALSE(trying.has("Contact"));
  Message busy = response(inv, 486, "Busy Here", "mine", ua());
  EXPECT_FALSE(busy.has("Record-Route"));
  EXPECT_EQ(tag(busy.header("To")), "mine");
}
