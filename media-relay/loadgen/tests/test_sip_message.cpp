// sip_message: parsing what an eP-CSCF (Kamailio 5.6 websocket) sends over the WebSocket, writing what loadgen sends.
#include <gtest/gtest.h>

#include "sip_message.h"

using namespace lg::sip;

namespace {
// A 200 to REGISTER as the lab's eP-CSCF relays it (two Vias joined on one line, compact forms, Service-Route).
const char* kRegOk =
    "SIP/2.0 200 OK\r\n"
    "v: SIP/2.0/WS abc.invalid;branch=z9hG4bKreg1;rport=40000;received=127.0.0.1, SIP/2.0/UDP 10.0.0.1;branch=z9hG4bKx\r\n"
    "f: <sip:alice@ims.lab>;tag=ft1\r\n"
    "t: <sip:alice@ims.lab>;tag=tt9\r\n"
    "i: reg-call-1\r\n"
    "CSeq: 2 REGISTER\r\n"
    "m: <sip:alice@abc.invalid;transport=ws;alias=127.0.0.1~40000~5>;expires=600\r\n"
    "Service-Route: <sip:orig@127.0.0.1:5062;lr>\r\n"
    "P-Associated-URI: <sip:alice@ims.lab>\r\n"
    "l: 0\r\n\r\n";
}  // namespace

TEST(SipMessage, ParsesAResponseWithCompactFormsAndJoinedVias) {
  Message m;
  std::string err;
  ASSERT_TRUE(parse(kRegOk, m, &err)) << err;
  EXPECT_FALSE(m.request);
  EXPECT_EQ(m.status, 200);
  EXPECT_EQ(m.reason, "OK");
  EXPECT_EQ(m.callId(), "reg-call-1");
  EXPECT_EQ(m.cseq(), 2u);
  EXPECT_EQ(m.cseqMethod(), "REGISTER");
  ASSERT_EQ(m.all("Via").size(), 2u) << "the comma-joined Via line is two Vias";
  EXPECT_EQ(param(m.header("Via"), "branch"), "z9hG4bKreg1");
  EXPECT_EQ(tag(m.header("To")), "tt9");
  EXPECT_EQ(tag(m.header("From")), "ft1");
  EXPECT_EQ(uri(m.header("Contact")), "sip:alice@abc.invalid;transport=ws;alias=127.0.0.1~40000~5");
  EXPECT_EQ(param(m.header("Contact"), "expires"), "600") << "a parameter after '>' is the header's, not the URI's";
  EXPECT_EQ(m.header("service-route"), "<sip:orig@127.0.0.1:5062;lr>") << "header names are case-insensitive";
  EXPECT_TRUE(m.body.empty());
}

TEST(SipMessage, ParsesARequestWithBodyFoldedLineAndLfOnlyLineEnds) {
  std::string sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\n";
  std::string text = "INVITE sip:alice@x.invalid;transport=ws SIP/2.0\n"
                     "Via: SIP/2.0/WS 127.0.0.1:5066;branch=z9hG4bKa\n"
                     "Record-Route: <sip:127.0.0.1:5066;transport=ws;r2=on;lr>,\n"
                     " <sip:127.0.0.1;r2=on;lr>\n"
                     "From: \"Bob, the UE\" <sip:ue2@ims.lab>;tag=b1\n"
                     "To: <sip:alice@ims.lab>\n"
                     "Call-ID: mt-1\n"
                     "CSeq: 7 INVITE\n"
                     "Content-Type: application/sdp\n"
                     "Content-Length: " + std::to_string(sdp.size()) + "\n\n" + sdp + "trailing junk";
  Message m;
  std::string err;
  ASSERT_TRUE(parse(text, m, &err)) << err;
  EXPECT_TRUE(m.request);
  EXPECT_EQ(m.method, "INVITE");
  EXPECT_EQ(m.uri, "sip:alice@x.invalid;transport=ws");
  EXPECT_EQ(m.body, sdp) << "the body is Content-Length bytes";
  auto rr = m.all("Record-Route");
  ASSERT_EQ(rr.size(), 2u) << "a folded Record-Route line is joined, then split at its comma";
  EXPECT_EQ(rr[1], "<sip:127.0.0.1;r2=on;lr>");
  EXPECT_EQ(uri(m.header("From")), "sip:ue2@ims.lab") << "a comma inside a quoted display name is no list separator";
  EXPECT_EQ(m.all("From").size(), 1u);
  EXPECT_EQ(userOf("sip:ue2@ims.lab;x=y"), "ue2");
  EXPECT_EQ(hostOf("sip:ue2@ims.lab:5060;x=y"), "ims.lab:5060");
}

TEST(SipMessage, RefusesWhatIsNoSipMessage) {
  Message m;
  std::string err;
  EXPECT_FALSE(parse("HTTP/1.1 200 OK\r\n\r\n", m, &err));
  EXPECT_NE(err.find("request line"), std::string::npos) << err;
  EXPECT_FALSE(parse("SIP/2.0 2x0 OK\r\nCall-ID: a\r\n\r\n", m, &err));
  EXPECT_NE(err.find("status line"), std::string::npos) << err;
  EXPECT_FALSE(parse("SIP/2.0 200 OK\r\nVia: SIP/2.0/WS a;branch=z9hG4bK1\r\nFrom: <sip:a@b>\r\nTo: <sip:a@b>\r\nCSeq: 1 BYE\r\n\r\n", m, &err));
  EXPECT_EQ(err, "no Call-ID header");
  std::string head = "Via: SIP/2.0/WS a;branch=z9hG4bK1\r\nFrom: <sip:a@b>;tag=1\r\nTo: <sip:a@b>\r\nCall-ID: c\r\n";
  EXPECT_FALSE(parse("BYE sip:a@b SIP/2.0\r\n" + head + "CSeq: 1 INVITE\r\n\r\n", m, &err));
  EXPECT_NE(err.find("CSeq method"), std::string::npos) << err;
  EXPECT_FALSE(parse("BYE sip:a@b SIP/2.0\r\n" + head + "CSeq: 1 BYE\r\nContent-Length: 10\r\n\r\nshort", m, &err));
  EXPECT_NE(err.find("shorter than Content-Length"), std::string::npos) << err;
  EXPECT_FALSE(parse("BYE sip:a@b SIP/2.0\r\n" + head + "CSeq: 1 BYE\r\nno colon here\r\n\r\n", m, &err));
  EXPECT_NE(err.find("without a name"), std::string::npos) << err;
  EXPECT_FALSE(parse("BYE sip:a@b SIP/2.0\r\n" + head + "CSeq: 1 BYE\r\n", m, &err));
  EXPECT_NE(err.find("empty line"), std::string::npos) << err;
}

TEST(SipMessage, WritesContentLengthLastAndRoundTrips) {
  Message m;
  m.request = true;
  m.method = "INVITE";
  m.uri = "sip:ue1@ims.lab";
  m.add("Via", "SIP/2.0/WS h.invalid;branch=z9hG4bK1");
  m.add("From", "<sip:alice@ims.lab>;tag=a");
  m.add("To", "<sip:ue1@ims.lab>");
  m.add("Call-ID", "c1");
  m.add("CSeq", "1 INVITE");
  m.add("Content-Length", "999");  // ignored: the real length is written
  m.add("Content-Type", "application/sdp");
  m.body = "v=0\r\n";
  std::string text = m.str();
  EXPECT_EQ(text.rfind("INVITE sip:ue1@ims.lab SIP/2.0\r\n", 0), 0u);
  EXPECT_NE(text.find("Content-Length: 5\r\n\r\nv=0\r\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("999"), std::string::npos) << "a stale Content-Length must not be written";
  Message back;
  std::string err;
  ASSERT_TRUE(parse(text, back, &err)) << err;
  EXPECT_EQ(back.body, "v=0\r\n");
  EXPECT_EQ(back.header("Content-Type"), "application/sdp");
  back.remove("content-type");
  EXPECT_FALSE(back.has("Content-Type"));
}

TEST(SipMessage, TokensAndBranchesAreFreshAndWellFormed) {
  std::string a = token(16), b = token(16);
  EXPECT_EQ(a.size(), 16u);
  EXPECT_NE(a, b) << "two random tokens were equal";
  EXPECT_TRUE(std::all_of(a.begin(), a.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) && !std::isupper(static_cast<unsigned char>(c)); }));
  EXPECT_EQ(branch().rfind("z9hG4bK", 0), 0u) << "RFC 3261 §8.1.1.7: a branch starts with the magic cookie";
}
