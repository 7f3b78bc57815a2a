package dev.toolgate.testkit;

/** A topic of the contract suite: its tests run on the fixture the concrete suite provides. */
public interface ContractCase {

    /** The current test's fixture. */
    Fixture fx();
}
