// tidepoolctl's terminal text (app/tidepoolctl/terminal_text.h): display widths by terminal columns (CJK and emoji
// two, combining marks none), cutting on character boundaries, and the visible escapes of the characters that would
// let a daemon-supplied string reorder a line, end it or take over the terminal. tst_ctl checks the same through the
// real tidepoolctl against a real tidepoold.

#include "app/tidepoolctl/terminal_text.h"

#include <QtTest>

using namespace tidepool::ctl;

// QCOMPARE prints both sides of a failed comparison of `std::string`s.
template <> inline char* QTest::toString(const std::string& s)
{
    return qstrdup(s.c_str());
}

class TestTerminalText : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void widthCountsColumnsNotBytes_data();
    void widthCountsColumnsNotBytes();
    void escapesWhatATerminalWouldActOn_data();
    void escapesWhatATerminalWouldActOn();
    void escapingIsIdempotent();
    void clipCutsOnCharacterBoundaries_data();
    void clipCutsOnCharacterBoundaries();
    void clipNeverExceedsTheWidth();
};

void TestTerminalText::widthCountsColumnsNotBytes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("columns");
    QTest::newRow("ASCII") << QByteArray("search") << 6;
    QTest::newRow("empty") << QByteArray() << 0;
    QTest::newRow("Chinese") << QByteArray("研发部") << 6; // 9 bytes
    QTest::newRow("Japanese kana") << QByteArray("カタカナ") << 8;
    QTest::newRow("Hangul syllables") << QByteArray("한국어") << 6;
    QTest::newRow("fullwidth forms") << QByteArray("ＡＢ") << 4;
    QTest::newRow("emoji") << QByteArray("\xF0\x9F\x9A\x80") << 2; // U+1F680 ROCKET, 4 bytes
    QTest::newRow("mixed") << QByteArray("gpu-训练🚀") << 10;
    QTest::newRow("combining acute") << QByteArray("e\xCC\x81") << 1; // e + U+0301
    QTest::newRow("precomposed") << QByteArray("\xC3\xA9") << 1; // é
    QTest::newRow("Latin-1 and Greek") << QByteArray("ñαβ") << 3;
    QTest::newRow("zero-width space") << QByteArray("a\xE2\x80\x8B"
                                                    "b")
                                      << 2;
    QTest::newRow("variation selector") << QByteArray("\xE2\x9C\x88\xEF\xB8\x8F") << 1; // U+2708 U+FE0F, as wcwidth
    QTest::newRow("escaped RLO") << QByteArray("a\xE2\x80\xAE"
                                               "b")
                                 << 8; // a\u202Eb
    QTest::newRow("escaped invalid byte") << QByteArray("a\xFF") << 5; // a\xFF
}

void TestTerminalText::widthCountsColumnsNotBytes()
{
    QFETCH(QByteArray, text);
    QFETCH(int, columns);
    QCOMPARE(displayWidth(text.toStdString()), static_cast<std::size_t>(columns));
    // The width is the width of what is printed.
    QCOMPARE(displayWidth(terminalSafe(text.toStdString())), static_cast<std::size_t>(columns));
}

void TestTerminalText::escapesWhatATerminalWouldActOn_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("shown");
    QTest::newRow("plain") << QByteArray("web-0 研发") << QByteArray("web-0 研发");
    QTest::newRow("RLO") << QByteArray("abc\xE2\x80\xAE"
                                       "fdp.exe")
                         << QByteArray("abc\\u202Efdp.exe");
    QTest::newRow("LRE PDF") << QByteArray("\xE2\x80\xAA"
                                           "x\xE2\x80\xAC")
                             << QByteArray("\\u202Ax\\u202C");
    QTest::newRow("isolates") << QByteArray("\xE2\x81\xA6"
                                            "a\xE2\x81\xA7"
                                            "b\xE2\x81\xA8"
                                            "c\xE2\x81\xA9")
                              << QByteArray("\\u2066a\\u2067b\\u2068c\\u2069");
    QTest::newRow("marks") << QByteArray("\xE2\x80\x8E\xE2\x80\x8F\xD8\x9C") << QByteArray("\\u200E\\u200F\\u061C");
    QTest::newRow("line and paragraph separators") << QByteArray("a\xE2\x80\xA8"
                                                                 "b\xE2\x80\xA9")
                                                   << QByteArray("a\\u2028b\\u2029");
    QTest::newRow("newline tab CR") << QByteArray("a\nb\tc\r") << QByteArray("a\\u000Ab\\u0009c\\u000D");
    QTest::newRow("ANSI escape") << QByteArray("\x1B[2J\x1B]0;owned\x07")
                                 << QByteArray("\\u001B[2J\\u001B]0;owned\\u0007");
    QTest::newRow("DEL") << QByteArray("a\x7F") << QByteArray("a\\u007F");
    QTest::newRow("C1 NEL and CSI") << QByteArray("a\xC2\x85"
                                                  "b\xC2\x9B"
                                                  "c")
                                    << QByteArray("a\\u0085b\\u009Bc");
    QTest::newRow("invalid UTF-8") << QByteArray("a\xC3(b\xFF") << QByteArray("a\\xC3(b\\xFF");
    QTest::newRow("overlong slash") << QByteArray("\xC0\xAF") << QByteArray("\\xC0\\xAF");
    QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << QByteArray("\\xED\\xA0\\x80");
    QTest::newRow("truncated at the end") << QByteArray("ok\xE7\xA0") << QByteArray("ok\\xE7\\xA0");
    QTest::newRow("backslash kept") << QByteArray("C:\\tmp") << QByteArray("C:\\tmp");
}

void TestTerminalText::escapesWhatATerminalWouldActOn()
{
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, shown);
    QCOMPARE(terminalSafe(text.toStdString()), shown.toStdString());
}

void TestTerminalText::escapingIsIdempotent()
{
    const std::string hostile = "\xE2\x80\xAE\x1B[31m研发\nx\xFF";
    const std::string once = terminalSafe(hostile);
    QCOMPARE(terminalSafe(once), once);
    for (const char c : once)
        QVERIFY2(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F, once.c_str());
}

void TestTerminalText::clipCutsOnCharacterBoundaries_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("columns");
    QTest::addColumn<QByteArray>("clipped");
    QTest::newRow("fits") << QByteArray("研发部") << 6 << QByteArray("研发部");
    QTest::newRow("ASCII cut") << QByteArray("abcdefghij") << 8 << QByteArray("abcde...");
    // 8 columns: 5 before the dots; a third ideograph would make 6, so two are kept and the line is one short.
    QTest::newRow("CJK cut") << QByteArray("研发部门的名字") << 8 << QByteArray("研发...");
    QTest::newRow("CJK cut exact") << QByteArray("研发部门的名字") << 9 << QByteArray("研发部...");
    QTest::newRow("emoji cut") << QByteArray("🚀🚀🚀🚀") << 6 << QByteArray("\xF0\x9F\x9A\x80...");
    QTest::newRow("combining mark kept with its letter")
        << QByteArray("abe\xCC\x81wxyz") << 6 << QByteArray("abe\xCC\x81...");
    QTest::newRow("escape kept whole") << QByteArray("a\xE2\x80\xAE"
                                                     "bcdefgh")
                                       << 8 << QByteArray("a...");
    QTest::newRow("escape fits") << QByteArray("a\xE2\x80\xAE"
                                               "bcdefgh")
                                 << 10 << QByteArray("a\\u202E...");
    QTest::newRow("narrower than the dots") << QByteArray("abcdef") << 2 << QByteArray("..");
}

void TestTerminalText::clipCutsOnCharacterBoundaries()
{
    QFETCH(QByteArray, text);
    QFETCH(int, columns);
    QFETCH(QByteArray, clipped);
    const std::string out = clipToWidth(text.toStdString(), static_cast<std::size_t>(columns));
    QCOMPARE(out, clipped.toStdString());
    // Valid UTF-8 whatever the cut: Qt decodes it without a replacement character.
    QVERIFY(!QString::fromUtf8(out.data(), static_cast<qsizetype>(out.size())).contains(QChar::ReplacementCharacter));
}

void TestTerminalText::clipNeverExceedsTheWidth()
{
    const std::string text = "pool 研发 🚀 e\xCC\x81 \xE2\x80\xAE end of a long reason that goes on";
    for (std::size_t columns = 0; columns < 80; ++columns) {
        const std::string out = clipToWidth(text, columns);
        QVERIFY2(displayWidth(out) <= columns,
            qPrintable(QString::number(columns) + QStringLiteral(": ") + QString::fromStdString(out)));
        QVERIFY(
            !QString::fromUtf8(out.data(), static_cast<qsizetype>(out.size())).contains(QChar::ReplacementCharacter));
    }
}

QTEST_APPLESS_MAIN(TestTerminalText)
#include "tst_terminal_text.moc"
